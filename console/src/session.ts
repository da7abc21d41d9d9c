import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../client/index';

export type ConsoleUser = components['schemas']['SessionUser'];
export type Session = components['schemas']['Session'];

type Listener = (session: Session | null) => void;

let current: Session | null = null;
const listeners = new Set<Listener>();

export function getSession(): Session | null {
  return current;
}

export function setSession(session: Session | null): void {
  current = session;
  for (const listener of listeners) listener(session);
}

export function useSession(): Session | null {
  const [session, update] = useState(current);
  useEffect(() => {
    listeners.add(update);
    update(current);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return session;
}

/** What each role may change; the server enforces the same, this only hides what would be refused. */
export function can(user: ConsoleUser | undefined, action: 'issue' | 'own'): boolean {
  if (!user) return false;
  if (action === 'own') return user.role === 'owner';
  return user.role === 'owner' || user.role === 'issuer';
}
