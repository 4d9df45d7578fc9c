/**
 * Entry point of the player bundle (dist/player/player.js), loaded by the launch page
 * `GET /launch/{sessionId}?token=…` on the content origin. The page carries no data: the session
 * id comes from the path and the launch token from the query string.
 */
import { startPlayer } from './player.controller.ts'

const root = document.getElementById('courseport-player') ?? document.body
startPlayer({ window, root }).catch((err: unknown) => {
  // Every expected failure is shown on screen by the player; this is for the unexpected ones.
  console.error('courseport player failed', err)
})
