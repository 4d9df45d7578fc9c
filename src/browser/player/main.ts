/**
 * Entry point of the player bundle (dist/player/player.js), loaded by the launch page
 * `GET /launch/{sessionId}?token=…` on the content origin. The page carries no data: the session
 * id comes from the path and the launch token from the query string.
 */
import { connectDispatchBridge } from './dispatch-bridge.ts'
import { startPlayer } from './player.controller.ts'

const root = document.getElementById('courseport-player') ?? document.body
// Inside a dispatch wrapper only: relays accepted commits to the client LMS (docs/dispatch.md).
const bridge = connectDispatchBridge(window)
startPlayer({ window, root, ...(bridge && { fetch: bridge.fetch }) }).catch((err: unknown) => {
  // Every expected failure is shown on screen by the player; this is for the unexpected ones.
  console.error('courseport player failed', err)
})
