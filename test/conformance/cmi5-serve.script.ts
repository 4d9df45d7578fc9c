import { startCmi5Server } from './cmi5-server.helper.ts'

// Development aid: serve Courseport for the cmi5 LMS Test Suite and print the adapter's env.
const server = await startCmi5Server(process.argv[2] === 'postgres' ? 'postgres' : 'sqlite')
console.log(
  Object.entries(server.env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' '),
)
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)))
process.once('SIGINT', () => void server.close().then(() => process.exit(0)))
