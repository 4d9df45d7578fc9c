import { startLrsServer } from './lrs-server.helper.ts'

// Development aid: serve a throw-away LRS and print what the ADL suite needs.
const server = await startLrsServer(process.argv[2] === 'postgres' ? 'postgres' : 'sqlite')
console.log(`-e ${server.endpoint} -a -u ${server.key} -p ${server.secret}`)
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)))
process.once('SIGINT', () => void server.close().then(() => process.exit(0)))
