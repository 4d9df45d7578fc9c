/**
 * Counts every check a CTS case makes, by kind, and keeps what failed: `delivery` (the expected
 * activity was delivered), `sessionEnd` (nothing further, ended sessions, `expect` events),
 * `uiCheck` (the questions a tester answered about the controls and table of contents),
 * `requestValid` (adl.nav.request_valid.* reads), `globalRead` (reads of mapped objectives).
 */
export type CheckKind = 'delivery' | 'sessionEnd' | 'uiCheck' | 'requestValid' | 'globalRead'

export class CheckTally {
  readonly passed: Record<CheckKind, number> = {
    delivery: 0,
    sessionEnd: 0,
    uiCheck: 0,
    requestValid: 0,
    globalRead: 0,
  }
  readonly failures: string[] = []

  record(kind: CheckKind, failure: string | null): void {
    if (failure === null) this.passed[kind]++
    else this.failures.push(`[${kind}] ${failure}`)
  }
}
