import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { loadSession, onSessionExpired } from './api';
import { Layout } from './layout';
import { AuditPage } from './pages/audit';
import { CertificateSettingsPage, DefinitionCertificatePage } from './pages/certificate-design';
import { ConnectorsPage } from './pages/connectors';
import { CredentialDetailPage } from './pages/credential-detail';
import { CredentialsPage } from './pages/credentials';
import { DashboardPage, requestDashboardEarly } from './pages/dashboard';
import { DefinitionPage } from './pages/definition-detail';
import { DefinitionsPage } from './pages/definitions';
import { ExpiringPage } from './pages/expiring';
import { InvitePage } from './pages/invite';
import { IssuePage } from './pages/issue';
import { KeysPage } from './pages/keys';
import { LoginPage } from './pages/login';
import { NotFoundPage } from './pages/not-found';
import { PathwaysPage } from './pages/pathways';
import { PrivacyPage } from './pages/privacy';
import { SettingsPage } from './pages/settings';
import { SignInSettingsPage } from './pages/settings-sso';
import { SetupPage } from './pages/setup';
import { TeamPage } from './pages/team';
import { WebhooksPage } from './pages/webhooks';
import { useSession } from './session';

const OPEN_PATHS = ['/console/login', '/console/invite/', '/console/setup/'];
const DASHBOARD_PATHS = ['/console', '/console/dashboard'];

// The session check and, on the dashboard, its analytics start as the script runs, side by side.
const sessionChecked = loadSession();
if (DASHBOARD_PATHS.includes(location.pathname)) requestDashboardEarly();

function Signed() {
  const session = useSession();
  const { route, path } = useLocation();
  const [checked, setChecked] = useState(false);
  useEffect(() => {
    onSessionExpired(() => route('/console/login?expired=1', true));
    sessionChecked.then(() => setChecked(true));
  }, [route]);
  const open = OPEN_PATHS.some((prefix) => path.startsWith(prefix));
  useEffect(() => {
    if (checked && !session && !open) route('/console/login', true);
  }, [checked, session, open, route]);

  if (open) {
    return (
      <Router>
        <Route path="/console/login" component={LoginPage} />
        <Route path="/console/invite/:token" component={InvitePage} />
        <Route path="/console/setup/:token" component={SetupPage} />
      </Router>
    );
  }
  if (!session) return <p class="loading">Loading…</p>;
  return (
    <Layout user={session.user}>
      <Router>
        <Route path="/console" component={DashboardPage} />
        <Route path="/console/dashboard" component={DashboardPage} />
        <Route path="/console/definitions" component={DefinitionsPage} />
        <Route path="/console/definitions/:id" component={DefinitionPage} />
        <Route path="/console/definitions/:id/certificate" component={DefinitionCertificatePage} />
        <Route path="/console/issue" component={IssuePage} />
        <Route path="/console/credentials" component={CredentialsPage} />
        <Route path="/console/credentials/:id" component={CredentialDetailPage} />
        <Route path="/console/expiring" component={ExpiringPage} />
        <Route path="/console/keys" component={KeysPage} />
        <Route path="/console/webhooks" component={WebhooksPage} />
        <Route path="/console/pathways" component={PathwaysPage} />
        <Route path="/console/team" component={TeamPage} />
        <Route path="/console/connectors" component={ConnectorsPage} />
        <Route path="/console/connectors/:provider" component={ConnectorsPage} />
        <Route path="/console/audit" component={AuditPage} />
        <Route path="/console/privacy" component={PrivacyPage} />
        <Route path="/console/settings" component={SettingsPage} />
        <Route path="/console/settings/certificates" component={CertificateSettingsPage} />
        <Route path="/console/sign-in-settings" component={SignInSettingsPage} />
        <Route default component={NotFoundPage} />
      </Router>
    </Layout>
  );
}

function App() {
  return (
    <LocationProvider>
      <Signed />
    </LocationProvider>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
