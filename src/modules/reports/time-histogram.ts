import { ByteReader, ByteWriter } from './varint.codec.ts'

/**
 * Time-on-task histograms: how the learner-progress report gets a median without reading every
 * session (issue 12.3). Each rollup row keeps, per bucket, how many attempts fell in it and the
 * sum of their times; rows merge by adding, and the median is read from the merged buckets.
 *
 * Buckets are geometric: 16 per doubling, so bucket `b` holds times in
 * [2^(b/16), 2^((b+1)/16)) seconds, a span of 4.4 %. Bucket 0 also holds times under one second;
 * bucket -1 holds exactly zero (an attempt never ended). The median is the mean time of the
 * bucket that holds the middle attempt (the average of two buckets' means for an even count), so
 * it lies in the same bucket as the exact median: within 4.4 % of it, and exact whenever the
 * attempts sharing that bucket have the same time (always so with few attempts per bucket).
 */
export const BUCKETS_PER_DOUBLING = 16

/** The bucket of a time in seconds (see the module comment). */
export function timeBucket(seconds: number): number {
  if (!(seconds > 0)) return -1
  return Math.max(0, Math.floor(BUCKETS_PER_DOUBLING * Math.log2(seconds)))
}

/** Bucket → [attempts, sum of their seconds]. Stored in binary (`encodeHistogram`) per row. */
export type TimeHistogram = Record<string, [count: number, sum: number]>

/** Adds (`sign` 1) or removes (`sign` -1) one attempt's time; empty buckets are dropped. */
export function addTime(histogram: TimeHistogram, seconds: number, sign: 1 | -1): void {
  const key = String(timeBucket(seconds))
  const [count, sum] = histogram[key] ?? [0, 0]
  const nextCount = count + sign
  if (nextCount <= 0) delete histogram[key]
  else histogram[key] = [nextCount, sum + sign * seconds]
}

/** Adds every bucket of `from` into `into`. */
export function mergeHistogram(into: TimeHistogram, from: TimeHistogram): void {
  for (const key in from) {
    const [count, sum] = from[key] as [number, number]
    const [c, s] = into[key] ?? [0, 0]
    into[key] = [c + count, s + sum]
  }
}

/**
 * The stored form (`report_daily.time_buckets`): per non-empty bucket, in bucket order, the
 * varints bucket + 1 and attempts, then the seconds' sum as a double. Decoding needs no parse of
 * text and merging no string keys (`mergeEncoded`), which is what the widest reports spend on.
 */
export function encodeHistogram(histogram: TimeHistogram): Buffer {
  const out = new ByteWriter()
  const buckets = Object.keys(histogram)
    .map(Number)
    .sort((a, b) => a - b)
  for (const b of buckets) {
    const [count, sum] = histogram[b] as [number, number]
    out.varint(b + 1)
    out.varint(count)
    out.float64(sum)
  }
  return out.finish()
}

export function decodeHistogram(bytes: Uint8Array): TimeHistogram {
  const histogram: TimeHistogram = {}
  const reader = new ByteReader(bytes)
  while (!reader.done) {
    const bucket = reader.varint() - 1
    const count = reader.varint()
    histogram[bucket] = [count, reader.float64()]
  }
  return histogram
}

/** Many rows' histograms added up: arrays indexed by bucket + 1 (the report's accumulator). */
export interface DenseHistogram {
  counts: number[]
  sums: number[]
}

export function mergeEncoded(into: DenseHistogram, bytes: Uint8Array): void {
  const reader = new ByteReader(bytes)
  const { counts, sums } = into
  while (!reader.done) {
    const index = reader.varint()
    const count = reader.varint()
    const sum = reader.float64()
    while (counts.length <= index) {
      counts.push(0)
      sums.push(0)
    }
    counts[index] = (counts[index] as number) + count
    sums[index] = (sums[index] as number) + sum
  }
}

/** A dense histogram's non-empty buckets as a TimeHistogram (a few hundred at most). */
export function sparseOf(dense: DenseHistogram): TimeHistogram {
  const histogram: TimeHistogram = {}
  dense.counts.forEach((count, index) => {
    if (count > 0) histogram[index - 1] = [count, dense.sums[index] as number]
  })
  return histogram
}

/** The median of the histogram's attempts (see the module comment); null when it is empty. */
export function histogramMedian(histogram: TimeHistogram): number | null {
  const buckets = Object.keys(histogram)
    .map(Number)
    .sort((a, b) => a - b)
  const total = buckets.reduce((n, b) => n + (histogram[b] as [number, number])[0], 0)
  if (total === 0) return null
  // 1-based ranks of the middle attempt(s): equal for an odd count.
  const ranks = [Math.floor((total + 1) / 2), Math.floor((total + 2) / 2)]
  const means = ranks.map((rank) => {
    let seen = 0
    for (const b of buckets) {
      const [count, sum] = histogram[b] as [number, number]
      seen += count
      if (seen >= rank) return b < 0 ? 0 : sum / count
    }
    return 0
  })
  return ((means[0] as number) + (means[1] as number)) / 2
}

/** The exact median of a few values (the per-learner rows, the reference in tests). */
export function exactMedian(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const lower = sorted[Math.floor((sorted.length - 1) / 2)] as number
  const upper = sorted[Math.floor(sorted.length / 2)] as number
  return (lower + upper) / 2
}
