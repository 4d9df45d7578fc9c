import { createReadStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { HttpEgressClient } from '../../infra/http-egress/index.ts'
import type { Clock } from '../../shared/clock.ts'
import type { PackageService } from '../packages/package.service.ts'
import type { LaunchService } from '../sessions/launch.service.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import {
  generateCourse,
  parseSlideMarkdown,
  type ScormTarget,
  type SlideInput,
} from './course-generator/index.ts'
import { packageDownloadUrl } from './package-download.token.ts'
import { fetchSlideImages } from './slide-image.fetcher.ts'
import { zipFileName } from './zip-file-name.ts'

export interface QuickPublishSlide {
  title: string
  /** Markdown subset: `**bold**`, `*italic*`, `- ` bullets (see parseSlideMarkdown). */
  content: string
  /** https URL of a picture to embed; fetched once, now, and stored in the package. */
  image_url?: string
  /** Text alternative of the picture; default the slide title. '' marks it decorative. */
  image_alt?: string
}

export interface QuickPublishInput {
  title: string
  slides: QuickPublishSlide[]
  /** Default '2004' (4th Edition). */
  scorm_version?: ScormTarget
}

export interface QuickPublishResult {
  package_id: string
  title: string
  scorm_version: ScormTarget
  slide_count: number
  created_at: string
  /** Signed, expiring link to the package zip. */
  package_url: string
  /** Hosted launch of a preview session. */
  launch_url: string
}

export interface QuickPublishDeps {
  packages: PackageService
  launches: LaunchService
  /** The SSRF-safe client image_url fetches go through. */
  egress: HttpEgressClient
  clock: Clock
  config: {
    publicUrl: string
    secretKey: string
    publish: { maxImageBytes: number; downloadUrlTtlSeconds: number }
  }
  scratchDir: string
}

/** The learner a quick-publish preview launches as (one per tenant and mode, reused). */
export const PREVIEW_LEARNER = 'courseport-preview'

/**
 * Quick publish (spec: POST /api/v1/quick-publish): slides written as a small markdown subset
 * become a hosted SCORM package through the shared course generator and the same validation as
 * uploads. Text is escaped when the course is generated, so `content` cannot inject markup.
 */
export class QuickPublishService {
  readonly #deps: QuickPublishDeps
  constructor(deps: QuickPublishDeps) {
    this.#deps = deps
  }

  async publish(scope: TenantScope, input: QuickPublishInput): Promise<QuickPublishResult> {
    const { packages, launches, egress, clock, config } = this.#deps
    const scormVersion = input.scorm_version ?? '2004'
    const dir = await mkdtemp(join(this.#deps.scratchDir, 'courseport-publish-'))
    try {
      const images = await fetchSlideImages(
        egress,
        input.slides.map((s) => s.image_url),
        dir,
        config.publish.maxImageBytes,
      )
      const slides: SlideInput[] = input.slides.map((slide, i) => {
        const image = images[i]
        return {
          title: slide.title,
          blocks: parseSlideMarkdown(slide.content),
          images: image
            ? [
                {
                  fileName: image.fileName,
                  altText: slide.image_alt ?? slide.title,
                  contentType: image.contentType,
                  open: () => createReadStream(image.path),
                },
              ]
            : [],
        }
      })
      const zipPath = join(dir, 'course.zip')
      await generateCourse({ title: input.title, scormVersion, slides }, zipPath)
      const detail = await packages.createFromZip(scope, {
        zipPath,
        filename: zipFileName(input.title),
        uploadedBy: 'quick-publish',
      })
      const pkg = detail.package
      const launch = await launches.launch(scope, pkg.id, {
        userId: PREVIEW_LEARNER,
        learnerName: 'Preview',
      })
      const expiresAt = new Date(
        clock.now().getTime() + config.publish.downloadUrlTtlSeconds * 1000,
      )
      const claims = { t: scope.tenantId, m: scope.mode, p: pkg.id, v: pkg.active_version_id ?? '' }
      return {
        package_id: pkg.id,
        title: pkg.title,
        scorm_version: scormVersion,
        slide_count: slides.length,
        created_at: pkg.created_at,
        package_url: packageDownloadUrl(config.publicUrl, config.secretKey, claims, expiresAt),
        launch_url: launch.launch_url,
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }
}
