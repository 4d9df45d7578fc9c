export {
  type CommitOutcome,
  type HttpRequestSample,
  type Metrics,
  noopMetrics,
  timed,
  type WebhookAttemptOutcome,
  type WorkOutcome,
  workOutcomeOf,
} from './metrics.ts'
export {
  createPrometheusMetrics,
  type MetricsExporter,
  type PrometheusMetricsOptions,
} from './prometheus-metrics.ts'
export { QUEUE_STATES, type QueueStat, type QueueState, readQueueStats } from './queue-stats.ts'
