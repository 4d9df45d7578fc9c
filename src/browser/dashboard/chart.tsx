/**
 * A uPlot line chart of values per day, with the same numbers in a table under a disclosure
 * (a canvas says nothing to a screen reader). uPlot styles its elements through the CSSOM and its
 * stylesheet is bundled into dashboard.css, so the page's CSP (no inline styles) holds.
 */
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { DataTable } from './ui.tsx'

export interface ChartSeries {
  label: string
  values: (number | null)[]
  /** A CSS colour; the palette below is distinguishable with the common colour-vision types. */
  color: string
  /** Dashed stroke, so a series is also told apart without colour. */
  dash?: boolean
}

export const PALETTE = { blue: '#0b57d0', orange: '#b85c00', green: '#1e7a3c', grey: '#5f6670' }

/** Horizontal reference lines, such as the 70/90/100 % usage thresholds. */
export interface ChartLine {
  value: number
  label: string
}

function referenceLines(lines: ChartLine[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx, bbox } = u
        ctx.save()
        ctx.strokeStyle = '#a01010'
        ctx.fillStyle = '#a01010'
        ctx.setLineDash([6, 4])
        ctx.lineWidth = devicePixelRatio
        ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`
        for (const line of lines) {
          const y = Math.round(u.valToPos(line.value, 'y', true))
          if (y < bbox.top || y > bbox.top + bbox.height) continue
          ctx.beginPath()
          ctx.moveTo(bbox.left, y)
          ctx.lineTo(bbox.left + bbox.width, y)
          ctx.stroke()
          // Labelled at the right end, clear of the y axis's numbers.
          ctx.textAlign = 'right'
          ctx.fillText(
            line.label,
            bbox.left + bbox.width - 4 * devicePixelRatio,
            y - 3 * devicePixelRatio,
          )
        }
        ctx.restore()
      },
    },
  }
}

export function DailyChart(props: {
  title: string
  /** `YYYY-MM-DD`, one per value. */
  days: string[]
  series: ChartSeries[]
  lines?: ChartLine[]
  /** The y scale reaches at least this (so reference lines stay in view). */
  minMax?: number
  height?: number
  /** What the chart shows, in words (its text alternative); default: each series' total. */
  summary?: string
}) {
  const host = useRef<HTMLDivElement>(null)
  const { days, series, lines = [], height = 220 } = props
  useEffect(() => {
    const el = host.current
    if (!el) return
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000)
    const top = Math.max(
      props.minMax ?? 0,
      ...lines.map((l) => l.value),
      ...series.flatMap((s) => s.values.map((v) => v ?? 0)),
      4,
    )
    const chart = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height,
        // The legend repeats the values under the cursor; the table below has them all.
        legend: { show: true, live: true },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: [0, Math.ceil(top * 1.1)] } },
        axes: [
          { stroke: '#4d5560', grid: { stroke: '#e4e7eb' } },
          { stroke: '#4d5560', grid: { stroke: '#e4e7eb' }, size: 44 },
        ],
        series: [
          {
            label: 'Day',
            value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 10)),
          },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            dash: s.dash ? [8, 4] : undefined,
            points: { show: true, size: 5, fill: s.color },
            spanGaps: false,
          })),
        ],
        plugins: lines.length ? [referenceLines(lines)] : [],
      },
      [xs, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    )
    const resize = new ResizeObserver(() => {
      chart.setSize({ width: Math.max(280, el.clientWidth), height })
    })
    resize.observe(el)
    return () => {
      resize.disconnect()
      chart.destroy()
    }
  }, [days, series, lines, height, props.minMax])
  const label =
    props.summary ??
    `${props.title}: ${series
      .map((s) => `${s.label} total ${s.values.reduce<number>((a, v) => a + (v ?? 0), 0)}`)
      .join(', ')}`
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={host} role="img" aria-label={label} class="chart-canvas" />
      <details>
        <summary>Show the numbers</summary>
        <DataTable
          caption={props.title}
          head={['Day', ...series.map((s) => s.label)]}
          rows={days.map((d, i) => [d, ...series.map((s) => String(s.values[i] ?? '—'))])}
          keys={days}
        />
      </details>
    </figure>
  )
}
