import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Me } from '../../http/customer/customer.schemas.ts'
import type { Mode } from './api.client.ts'

/** What every page may read besides its params: who is signed in and which mode's data. */
export interface DashboardSession {
  me: Me
  mode: Mode
  /** Owners and admins change content and webhooks; viewers only read. */
  canManage: boolean
  isOwner: boolean
}

export const SessionContext = createContext<DashboardSession | null>(null)

/** The signed-in user and the mode switch; only inside the signed-in shell. */
export function useSession(): DashboardSession {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside the signed-in shell')
  return session
}
