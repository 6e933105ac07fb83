import { createContext, useContext } from 'react';
import type { SessionInfo } from '../../common/contract/admin.ts';

export type SessionContextValue = {
  session: SessionInfo;
  signOut: () => Promise<void>;
};

export const SessionContext = createContext<SessionContextValue | null>(null);

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in page');
  return value;
}
