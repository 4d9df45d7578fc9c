/** How the dashboard writes numbers and times (UTC, like the API). */

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${Math.round(value * 1000) / 10} %`
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—'
  const s = Math.round(seconds)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  if (h) return `${h} h ${m} min`
  return m ? `${m} min ${s % 60} s` : `${s} s`
}

export const when = (iso: string | null | undefined) =>
  iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—'
export const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : '—')
export const kib = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : `${Math.max(1, Math.round(bytes / 1024))} KiB`
