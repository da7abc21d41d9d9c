import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { signOut } from './api';
import { rememberIssuer } from './pages/login';
import { type ConsoleUser, can } from './session';

const NAV: { href: string; label: string; needs?: 'issue' | 'own' }[] = [
  { href: '/console/dashboard', label: 'Dashboard' },
  { href: '/console/definitions', label: 'Definitions' },
  { href: '/console/issue', label: 'Issue', needs: 'issue' },
  { href: '/console/credentials', label: 'Credentials' },
  { href: '/console/expiring', label: 'Expiring soon' },
  { href: '/console/pathways', label: 'Pathways' },
  { href: '/console/audit', label: 'Audit log' },
  { href: '/console/keys', label: 'API keys', needs: 'own' },
  { href: '/console/webhooks', label: 'Webhooks', needs: 'own' },
  { href: '/console/connectors', label: 'Connectors', needs: 'own' },
  { href: '/console/team', label: 'Team', needs: 'own' },
  { href: '/console/privacy', label: 'Privacy', needs: 'own' },
  { href: '/console/settings', label: 'Settings', needs: 'own' },
  { href: '/console/sign-in-settings', label: 'Sign-in', needs: 'own' },
];

export function Layout({ user, children }: { user: ConsoleUser; children: ComponentChildren }) {
  const { path, route } = useLocation();
  const main = useRef<HTMLElement>(null);
  // A new page moves focus to its content, as a full page load would for a screen reader.
  useEffect(() => {
    main.current?.focus({ preventScroll: true });
  }, [path]);
  // The plain login page of this browser offers this organisation's own login next time (SSO too).
  useEffect(() => rememberIssuer(user.issuer.slug), [user.issuer.slug]);
  const links = NAV.filter((item) => !item.needs || can(user, item.needs));
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <strong>Accolade</strong> <span>{user.issuer.name}</span>
        </div>
        <nav aria-label="Console">
          <ul>
            {links.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={path.startsWith(item.href) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <span>
            {user.email} ({user.role})
          </span>
          <button
            type="button"
            class="secondary"
            onClick={async () => {
              await signOut();
              route('/console/login');
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
