import { useEffect, useState } from 'preact/hooks';
import { api, problem } from '../api';
import { Alert, ConfirmDialog } from '../ui';

/**
 * A credential's certificate on its page (issue 44 "Get it"): the download for staff, and the
 * earner's own link (the one the award email gives them), which staff may copy or withdraw.
 */
export function CertificateSection({ credentialId, mayChange }: { credentialId: string; mayChange: boolean }) {
  const [link, setLink] = useState<string | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [confirming, setConfirming] = useState(false);
  const path = { params: { path: { id: credentialId } } };

  useEffect(() => {
    (async () => {
      const { data, error: failure } = await api.GET('/api/v1/credentials/{id}/certificate-link', path);
      if (failure) setError(problem(failure));
      else setLink(data.url);
    })();
  }, [credentialId]);

  async function withdraw() {
    setConfirming(false);
    const { data, error: failure } = await api.POST('/api/v1/credentials/{id}/certificate-link/revoke', path);
    if (failure) setError(problem(failure));
    else {
      setLink(data.url);
      setNotice('The earner’s old link no longer opens the certificate. Send them the new one.');
    }
  }

  async function copy() {
    if (!link) return;
    await navigator.clipboard.writeText(link);
    setNotice('Copied the earner’s certificate link.');
  }

  return (
    <section class="panel" aria-labelledby="certificate-title">
      <h2 id="certificate-title">Certificate</h2>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {link === null && <p>Certificates are turned off for this badge, or no earner name is stored to print.</p>}
      {link && (
        <>
          <p>
            <a class="button" href={`/api/v1/credentials/${encodeURIComponent(credentialId)}/certificate.pdf`} download>
              Download certificate
            </a>
          </p>
          <p>
            The earner’s own link (it shows their full name; only they should have it):{' '}
            <code class="certificate-link">{link}</code>
          </p>
          <div class="actions">
            <button type="button" class="secondary" onClick={copy}>
              Copy the earner’s link
            </button>
            {mayChange && (
              <button type="button" class="secondary" onClick={() => setConfirming(true)}>
                Withdraw the earner’s link
              </button>
            )}
          </div>
        </>
      )}
      {confirming && (
        <ConfirmDialog
          id="confirm-withdraw-certificate-link"
          title="Withdraw the earner’s certificate link?"
          confirmLabel="Withdraw link"
          onConfirm={withdraw}
          onCancel={() => setConfirming(false)}
        >
          <p>
            The old link then answers that it was withdrawn. A new link is made for the earner; the credential stays
            valid.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
