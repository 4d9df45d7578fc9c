// The summaries' queries live in the repository (the tenant-scope rule); this path stays for
// existing importers.
export type { StatementSummary } from './statement-summary.repository.ts'
export { statementSummaries } from './statement-summary.repository.ts'
