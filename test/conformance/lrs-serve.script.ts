import { startLrsServer } from './lrs-server.helper.ts'

// Development aid: serve a throw-away LRS and print what the ADL suite needs.
const server = await startLrsServer(process.argv[2] === 'postgres' ? 'postgres' : 'sqlite')
console.log(`2.0.0: -e ${server.endpoint} -a -u ${server.key} -p ${server.secret}`)
console.log(`1.0.3: -e ${server.endpoint} -a -u ${server.legacy.key} -p ${server.legacy.secret}`)
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)))
process.once('SIGINT', () => void server.close().then(() => process.exit(0)))
