import {
  type Api12,
  type Api2004,
  createRuntime,
  type LaunchData,
  type RuntimeConfig,
} from '../../../src/modules/scorm/data-model/index.ts'

export const LEARNER: LaunchData = { learnerId: 'learner-1', learnerName: 'Ada Lovelace' }

/** A running 2004 API plus a helper returning `[result, GetLastError()]` for one call. */
export function api2004(
  initial: Partial<LaunchData> = {},
  config: Partial<Omit<RuntimeConfig<'2004'>, 'version' | 'initial'>> = {},
) {
  const rt = createRuntime({ version: '2004', initial: { ...LEARNER, ...initial }, ...config })
  rt.api.Initialize('')
  return { rt, api: rt.api, ...helpers2004(rt.api) }
}

export function helpers2004(api: Api2004) {
  return {
    set: (element: string, value: string) => [api.SetValue(element, value), api.GetLastError()],
    get: (element: string) => [api.GetValue(element), api.GetLastError()],
  }
}

export function api12(
  initial: Partial<LaunchData> = {},
  config: Partial<Omit<RuntimeConfig<'1.2'>, 'version' | 'initial'>> = {},
) {
  const rt = createRuntime({ version: '1.2', initial: { ...LEARNER, ...initial }, ...config })
  rt.api.LMSInitialize('')
  return { rt, api: rt.api, ...helpers12(rt.api) }
}

export function helpers12(api: Api12) {
  return {
    set: (element: string, value: string) => [
      api.LMSSetValue(element, value),
      api.LMSGetLastError(),
    ],
    get: (element: string) => [api.LMSGetValue(element), api.LMSGetLastError()],
  }
}
