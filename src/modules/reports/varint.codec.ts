/**
 * Unsigned LEB128 varints and little-endian doubles in a growable byte buffer: the compact binary
 * form of the learner-progress rollup's learner sets and time histograms (a row's JSON cost more
 * to parse than the whole rest of the report at 200 000 sessions).
 */
export class ByteWriter {
  #bytes = new Uint8Array(64)
  #view = new DataView(this.#bytes.buffer)
  #length = 0

  /** A non-negative integer below 2^53. */
  varint(value: number): void {
    this.#room(8)
    let v = value
    while (v >= 0x80) {
      this.#bytes[this.#length++] = (v % 0x80) | 0x80
      v = Math.floor(v / 0x80)
    }
    this.#bytes[this.#length++] = v
  }

  float64(value: number): void {
    this.#room(8)
    this.#view.setFloat64(this.#length, value, true)
    this.#length += 8
  }

  /** A Buffer (both database drivers bind it as a blob / bytea) of what was written. */
  finish(): Buffer {
    return Buffer.from(this.#bytes.buffer, 0, this.#length)
  }

  #room(n: number): void {
    if (this.#length + n <= this.#bytes.length) return
    const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + n))
    grown.set(this.#bytes.subarray(0, this.#length))
    this.#bytes = grown
    this.#view = new DataView(grown.buffer)
  }
}

/** Reads what a ByteWriter wrote, in the same order. */
export class ByteReader {
  readonly bytes: Uint8Array
  #view: DataView
  offset = 0

  constructor(bytes: Uint8Array) {
    this.bytes = bytes
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get done(): boolean {
    return this.offset >= this.bytes.length
  }

  varint(): number {
    let value = 0
    let scale = 1
    for (;;) {
      const b = this.bytes[this.offset++]
      if (b === undefined) throw new Error('truncated varint')
      value += (b & 0x7f) * scale
      if (b < 0x80) return value
      scale *= 0x80
    }
  }

  float64(): number {
    const value = this.#view.getFloat64(this.offset, true)
    this.offset += 8
    return value
  }
}
