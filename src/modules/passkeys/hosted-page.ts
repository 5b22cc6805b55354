/**
 * The hosted passkey page: plain HTML with an inline script allowed by a per-response CSP nonce,
 * no external assets. It reads the session from the address's fragment (never sent to a server),
 * clears it from the address bar, asks for the options, runs the WebAuthn ceremony on Slipway's
 * origin, and follows the answer back to the tenant's app with a one-time code.
 */
import { pageHeaders } from '../../http/page-headers'
import { randomBytes } from 'node:crypto'

export function hostedPage() {
  const nonce = randomBytes(16).toString('base64')
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Passkey</title>
<style nonce="${nonce}">
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; color: #1a1a1a }
  button { font: inherit; padding: .6rem 1.2rem; border-radius: .4rem; border: 1px solid #333; background: #111; color: #fff; cursor: pointer }
  button[disabled] { opacity: .5 } [role=alert] { color: #a40000 } [hidden] { display: none }
</style></head>
<body>
<h1 id="title">Passkey</h1>
<p id="lead">Checking your session…</p>
<button id="go" type="button" hidden>Continue</button>
<p id="error" role="alert" hidden></p>
<script nonce="${nonce}">
(function () {
  var session = new URLSearchParams(location.hash.slice(1)).get('session');
  history.replaceState(null, '', location.pathname);
  var $ = function (id) { return document.getElementById(id); };
  function fail(text) { $('error').textContent = text; $('error').hidden = false; $('go').disabled = false; }
  var b64u = {
    toBytes: function (s) { s = s.replace(/-/g, '+').replace(/_/g, '/'); while (s.length % 4) s += '='; return Uint8Array.from(atob(s), function (c) { return c.charCodeAt(0); }); },
    from: function (buf) { var s = ''; new Uint8Array(buf).forEach(function (b) { s += String.fromCharCode(b); }); return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, ''); },
  };
  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.message || 'Something went wrong'); return j; }); });
  }
  function creation(o) {
    return { challenge: b64u.toBytes(o.challenge), rp: o.rp, user: { id: b64u.toBytes(o.user.id), name: o.user.name, displayName: o.user.displayName },
      pubKeyCredParams: o.pubKeyCredParams, timeout: o.timeout, attestation: o.attestation, authenticatorSelection: o.authenticatorSelection,
      excludeCredentials: (o.excludeCredentials || []).map(function (c) { return { type: 'public-key', id: b64u.toBytes(c.id), transports: c.transports }; }) };
  }
  function request(o) {
    return { challenge: b64u.toBytes(o.challenge), rpId: o.rpId, timeout: o.timeout, userVerification: o.userVerification,
      allowCredentials: (o.allowCredentials || []).map(function (c) { return { type: 'public-key', id: b64u.toBytes(c.id), transports: c.transports }; }) };
  }
  function json(cred) {
    var r = cred.response, out = { clientDataJSON: b64u.from(r.clientDataJSON) };
    if (r.attestationObject) {
      out.attestationObject = b64u.from(r.attestationObject);
      out.transports = r.getTransports ? r.getTransports() : [];
      if (r.getAuthenticatorData) out.authenticatorData = b64u.from(r.getAuthenticatorData());
    } else {
      out.authenticatorData = b64u.from(r.authenticatorData); out.signature = b64u.from(r.signature);
      if (r.userHandle) out.userHandle = b64u.from(r.userHandle);
    }
    return { id: cred.id, rawId: b64u.from(cred.rawId), type: cred.type, response: out, clientExtensionResults: {} };
  }
  if (!session || !window.PublicKeyCredential) { $('lead').textContent = ''; fail(session ? 'This browser does not support passkeys.' : 'This link is invalid or has expired.'); return; }
  post('/v1/passkeys/hosted/options', { session: session }).then(function (start) {
    var register = start.mode === 'register';
    $('title').textContent = register ? 'Create a passkey' : 'Sign in with a passkey';
    $('lead').textContent = register ? 'Your device will ask you to confirm with your fingerprint, face or screen lock.' : 'Choose the passkey you saved for this app.';
    $('go').textContent = register ? 'Create passkey' : 'Sign in';
    $('go').hidden = false;
    $('go').addEventListener('click', function () {
      $('go').disabled = true; $('error').hidden = true;
      var ceremony = register ? navigator.credentials.create({ publicKey: creation(start.options) }) : navigator.credentials.get({ publicKey: request(start.options) });
      ceremony.then(function (cred) { return post('/v1/passkeys/hosted/verify', { session: session, response: json(cred) }); })
        .then(function (done) { location.assign(done.redirectUrl); })
        .catch(function (err) { fail(err && err.name === 'NotAllowedError' ? 'The passkey was not confirmed. Try again.' : (err.message || 'Something went wrong')); });
    });
  }).catch(function (err) { $('lead').textContent = ''; fail(err.message); });
})();
</script>
</body></html>`
  return {
    html,
    // the address may hold a token: never sent onwards (no referrer)
    headers: pageHeaders(nonce),
  }
}
