import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'

/**
 * Slide pictures that a course zip waits for while the renderer is still drawing them: the
 * pipeline starts writing the zip as soon as the presentation is read (during LibreOffice's run,
 * on the core it leaves idle), and the zip takes each slide picture as soon as it is finished.
 * Every picture settles exactly once: with the first path given for it, or with the failure.
 */
export class SlidePictureFeed {
  readonly #pictures = new Map<number, PromiseWithResolvers<string>>()
  #failure: { reason: unknown } | undefined

  #entry(slide: number): PromiseWithResolvers<string> {
    let entry = this.#pictures.get(slide)
    if (!entry) {
      entry = Promise.withResolvers<string>()
      // A zip that failed early never asks for the later pictures; their failure is no news.
      entry.promise.catch(() => {})
      if (this.#failure) entry.reject(this.#failure.reason)
      this.#pictures.set(slide, entry)
    }
    return entry
  }

  /** The picture of `slide` is complete at `path`. Later calls for the same slide change nothing. */
  add(slide: number, path: string): void {
    this.#entry(slide).resolve(path)
  }

  /**
   * The render finished with these pictures: the ones not announced yet are ready now, and a
   * slide without a picture will never get one.
   */
  complete(pictures: ReadonlyMap<number, string>): void {
    for (const [slide, path] of pictures) this.add(slide, path)
    this.fail(new Error('The renderer made no picture of this slide'))
  }

  /** No more pictures will come: every slide still waiting gets `reason` instead. */
  fail(reason: unknown): void {
    this.#failure ??= { reason }
    for (const entry of this.#pictures.values()) entry.reject(reason)
  }

  /** Path of the picture of `slide`, once it is complete. */
  path(slide: number): Promise<string> {
    return this.#entry(slide).promise
  }

  /** The picture's bytes, once it is complete. */
  async open(slide: number): Promise<Readable> {
    return createReadStream(await this.path(slide))
  }
}
