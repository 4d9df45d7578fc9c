import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type {
  CommitOutcome,
  HttpRequestSample,
  Metrics,
  WebhookAttemptOutcome,
  WorkOutcome,
} from './metrics.ts'
import { QUEUE_STATES, type QueueStat } from './queue-stats.ts'

/** The exporter: records like any `Metrics`, and renders the Prometheus text format. */
export interface MetricsExporter extends Metrics {
  /** `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string
  /** Reads the queue (see `queueStats`), then renders every series. */
  render(): Promise<string>
}

export interface PrometheusMetricsOptions {
  /**
   * Reads the queue on each scrape (`readQueueStats`). When it fails (the database is down) the
   * queue series are left out of that scrape rather than failing it. Default: no queue series.
   */
  queueStats?: () => Promise<QueueStat[]>
  /** The process's CPU, memory, event loop, GC and handle series. Default true. */
  defaultMetrics?: boolean
}

/** Commits are sub-millisecond at best; uploads and exports take seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** A receiver has 30 s (the spec's budget). */
const WEBHOOK_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** Package ingest and conversions: from a small zip to a 300-slide deck. */
const WORK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]

// Long on purpose: a factory whose closure (the registered series) is shared by the methods it
// returns.
/**
 * Metrics kept in one prom-client `Registry` owned by this object, never the library's global
 * one: each process builds one in its composition root, and tests build several in one process.
 * Series and labels are listed in docs/operations.md ("Metrics").
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): MetricsExporter {
  const registry = new Registry()
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry })
  const registers = [registry]
  const http = new Histogram({
    name: 'courseport_http_request_duration_seconds',
    help: 'HTTP requests by origin (api|content), route pattern, method and status class',
    labelNames: ['origin', 'route', 'method', 'status_class'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  })
  const commits = new Counter({
    name: 'courseport_runtime_commits_total',
    help: 'Runtime commits answered, by outcome (applied|duplicate|conflict|refused|error)',
    labelNames: ['outcome'] as const,
    registers,
  })
  const webhookAttempts = new Counter({
    name: 'courseport_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered|failed|dead_letter)',
    labelNames: ['outcome'] as const,
    registers,
  })
  const webhookDuration = new Histogram({
    name: 'courseport_webhook_attempt_duration_seconds',
    help: 'Time from sending a webhook attempt to its answer (or failure)',
    buckets: WEBHOOK_BUCKETS,
    registers,
  })
  const ingest = new Histogram({
    name: 'courseport_package_ingest_duration_seconds',
    help: 'Validating and storing a package zip, by outcome (ok|refused|error)',
    labelNames: ['outcome'] as const,
    buckets: WORK_BUCKETS,
    registers,
  })
  const conversion = new Histogram({
    name: 'courseport_conversion_duration_seconds',
    help: 'One conversion attempt (render, build, register), by outcome (ok|refused|error)',
    labelNames: ['outcome'] as const,
    buckets: WORK_BUCKETS,
    registers,
  })
  const queueJobs = new Gauge({
    name: 'courseport_queue_jobs',
    help: 'Jobs not completed, by task and state (due|scheduled|running|failed), read on scrape',
    labelNames: ['task', 'state'] as const,
    registers,
  })
  const queueAge = new Gauge({
    name: 'courseport_queue_oldest_due_job_age_seconds',
    help: 'How long the oldest due job of each task has waited for a worker; 0 when none is due',
    labelNames: ['task'] as const,
    registers,
  })
  // A task that drained keeps its series at 0 instead of vanishing (an alert on a missing
  // series reads as "no data", not as "healthy").
  const seenTasks = new Set<string>()

  async function refreshQueue(): Promise<void> {
    if (!options.queueStats) return
    let stats: QueueStat[]
    try {
      stats = await options.queueStats()
    } catch {
      queueJobs.reset()
      queueAge.reset()
      return
    }
    for (const stat of stats) seenTasks.add(stat.task)
    const byTask = new Map(stats.map((s) => [s.task, s]))
    for (const task of seenTasks) {
      const stat = byTask.get(task)
      for (const state of QUEUE_STATES) queueJobs.set({ task, state }, stat?.jobs[state] ?? 0)
      queueAge.set({ task }, stat?.oldestDueAgeSeconds ?? 0)
    }
  }

  return {
    contentType: registry.contentType,
    async render() {
      await refreshQueue()
      return registry.metrics()
    },
    httpRequest(sample: HttpRequestSample) {
      http.observe(
        {
          origin: sample.origin,
          route: sample.route,
          method: sample.method,
          status_class: `${Math.floor(sample.statusCode / 100)}xx`,
        },
        sample.seconds,
      )
    },
    runtimeCommit(outcome: CommitOutcome) {
      commits.inc({ outcome })
    },
    webhookAttempt(outcome: WebhookAttemptOutcome, seconds: number) {
      webhookAttempts.inc({ outcome })
      webhookDuration.observe(seconds)
    },
    packageIngest(outcome: WorkOutcome, seconds: number) {
      ingest.observe({ outcome }, seconds)
    },
    conversion(outcome: WorkOutcome, seconds: number) {
      conversion.observe({ outcome }, seconds)
    },
  }
}
