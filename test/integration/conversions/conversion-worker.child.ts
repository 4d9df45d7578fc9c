/**
 * A worker process for the crash tests (not a test file itself): the real context and task
 * registry over the test's database and data directory.
 * Usage: node conversion-worker.child.ts <databaseUrl> <dataDir>
 * Prints `ready` once polling.
 */
import { loadConfig } from '../../../src/config.ts'
import { Worker } from '../../../src/infra/queue/index.ts'
import { taskRegistry } from '../../../src/jobs/registry.ts'
import { createContext } from '../../../src/main/context.ts'
import { TEST_APP_ENV } from './conversion.helper.ts'

const [url, dataDir] = process.argv.slice(2)
if (!url || !dataDir) throw new Error('usage: conversion-worker.child.ts <databaseUrl> <dataDir>')
const config = loadConfig({ ...TEST_APP_ENV, DATABASE_URL: url, DATA_DIR: dataDir })
const ctx = await createContext(config, { migrate: false })
const worker = new Worker(ctx.db, taskRegistry(ctx), {
  pollIntervalMs: 20,
  logger: { info() {}, warn() {}, error() {} },
})
worker.start()
process.stdout.write('ready\n')
