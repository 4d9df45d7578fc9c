import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../infra/db/schema.ts'
import type { Clock } from '../../shared/clock.ts'
import { contentOriginsOf } from '../../shared/content-origin.ts'
import type { LaunchService } from '../sessions/launch.service.ts'
import { DispatchService } from './dispatch.service.ts'
import { DispatchLaunchService } from './dispatch-launch.service.ts'

export { DispatchService } from './dispatch.service.ts'
export { DispatchLaunchService } from './dispatch-launch.service.ts'

/** Both dispatch services, wired from the configuration (one line in the context). */
export function createDispatchServices(deps: {
  db: Kysely<Database>
  clock: Clock
  config: Config
  launches: LaunchService
}): { dispatches: DispatchService; dispatchLaunches: DispatchLaunchService } {
  const { db, clock, config, launches } = deps
  return {
    dispatches: new DispatchService({
      db,
      clock,
      links: { origins: contentOriginsOf(config), secretKey: config.secretKey },
    }),
    dispatchLaunches: new DispatchLaunchService({
      db,
      clock,
      secretKey: config.secretKey,
      origins: contentOriginsOf(config),
      newLearnersPerMinute: config.dispatchNewLearnersPerMinute,
      launches,
    }),
  }
}
