/**
 * The page a reset link opens. Plain HTML, inline CSS and script (no build step, no
 * external assets), allowed by a per-response CSP nonce. The token is read by the
 * script from the address bar and never written into the HTML, and the address is
 * then replaced so the token does not stay in the history.
 */
import { pageHeaders } from '../../http/page-headers'
import { randomBytes } from 'node:crypto'

const TEXT = {
  en: {
    title: 'Choose a new password',
    checking: 'Checking your link…',
    invalid: 'This reset link is invalid or has expired. Please request a new one from the app.',
    password: 'New password',
    confirm: 'Repeat the new password',
    rules: 'Your password needs:',
    ruleLength: 'at least 8 characters',
    ruleUpper: 'an uppercase letter',
    ruleLower: 'a lowercase letter',
    ruleDigit: 'a digit',
    show: 'Show passwords',
    submit: 'Set new password',
    saving: 'Saving…',
    mismatch: 'The two passwords are different.',
    weak: 'The password does not meet the rules above.',
    success: 'Your password has been changed. You can now sign in with it.',
    failed: 'Something went wrong. Please try again.',
    tooMany: 'Too many attempts. Please wait a minute and try again.',
    breached: 'This password has appeared in a known data breach. Please choose a different one.',
    unavailable: 'The password could not be checked right now. Please try again in a few minutes.',
  },
  it: {
    title: 'Scegli una nuova password',
    checking: 'Verifica del link in corso…',
    invalid: "Questo link non è valido o è scaduto. Richiedine uno nuovo dall'app.",
    password: 'Nuova password',
    confirm: 'Ripeti la nuova password',
    rules: 'La password deve avere:',
    ruleLength: 'almeno 8 caratteri',
    ruleUpper: 'una lettera maiuscola',
    ruleLower: 'una lettera minuscola',
    ruleDigit: 'una cifra',
    show: 'Mostra le password',
    submit: 'Imposta la nuova password',
    saving: 'Salvataggio…',
    mismatch: 'Le due password sono diverse.',
    weak: 'La password non rispetta le regole indicate.',
    success: 'La password è stata modificata. Ora puoi accedere con la nuova password.',
    failed: 'Qualcosa è andato storto. Riprova.',
    tooMany: 'Troppi tentativi. Attendi un minuto e riprova.',
    breached: 'Questa password è comparsa in una violazione di dati nota. Scegline una diversa.',
    unavailable: 'Al momento non è possibile verificare la password. Riprova tra qualche minuto.',
  },
}

/** The texts the page's script shows, in the page's language. */
function pageTexts(s: (typeof TEXT)['en']) {
  const { invalid, mismatch, weak, failed, tooMany, breached, unavailable, submit, saving } = s
  return { invalid, mismatch, weak, failed, tooMany, breached, unavailable, submit, saving }
}

export function resetPage(lang: string | undefined) {
  const locale = lang === 'it' ? 'it' : 'en'
  const s = TEXT[locale]
  const nonce = randomBytes(16).toString('base64')
  const html = `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${s.title}</title>
<style nonce="${nonce}">
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; }
  body { margin: 0; padding: 24px 16px; display: flex; justify-content: center; }
  main { width: 100%; max-width: 420px; }
  h1 { font-size: 1.5rem; margin: 0 0 16px; }
  label { display: block; font-weight: 600; margin: 16px 0 4px; }
  input[type=password], input[type=text] { width: 100%; box-sizing: border-box; font-size: 1rem; padding: 10px; border: 1px solid #767676; border-radius: 6px; }
  input:focus-visible, button:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
  .show { display: flex; gap: 8px; align-items: center; font-weight: normal; }
  ul { margin: 4px 0 0; padding-left: 20px; }
  li.met { color: #15803d; }
  li.met::after { content: " ✓"; }
  button { margin-top: 20px; width: 100%; font-size: 1rem; padding: 12px; border: 0; border-radius: 6px; background: #1d4ed8; color: #fff; cursor: pointer; }
  button[disabled] { opacity: .6; cursor: progress; }
  .msg { padding: 12px; border-radius: 6px; margin: 0 0 16px; }
  .error { background: #fee2e2; color: #7f1d1d; }
  .ok { background: #dcfce7; color: #14532d; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<main>
  <h1>${s.title}</h1>
  <p id="status" role="status" aria-live="polite">${s.checking}</p>
  <p id="error" class="msg error" role="alert" hidden></p>
  <p id="success" class="msg ok" role="status" hidden>${s.success}</p>
  <form id="form" hidden novalidate>
    <label for="password">${s.password}</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="256" aria-describedby="rules">
    <label for="confirm">${s.confirm}</label>
    <input id="confirm" name="confirm" type="password" autocomplete="new-password" required maxlength="256">
    <label class="show"><input id="show" type="checkbox"> ${s.show}</label>
    <div id="rules">
      <p>${s.rules}</p>
      <ul>
        <li data-rule="length">${s.ruleLength}</li>
        <li data-rule="upper">${s.ruleUpper}</li>
        <li data-rule="lower">${s.ruleLower}</li>
        <li data-rule="digit">${s.ruleDigit}</li>
      </ul>
    </div>
    <button id="submit" type="submit">${s.submit}</button>
  </form>
  <noscript><p class="msg error">JavaScript is needed to reset your password on this page.</p></noscript>
</main>
<script nonce="${nonce}">
(function () {
  var T = ${JSON.stringify(pageTexts(s))};
  var LOCALE = ${JSON.stringify(locale)};
  var params = new URLSearchParams(location.search);
  var token = params.get('token') || '';
  params.delete('token');
  history.replaceState(null, '', location.pathname + (params.toString() ? '?' + params : ''));
  var $ = function (id) { return document.getElementById(id); };
  var form = $('form'), status = $('status'), error = $('error'), success = $('success'), button = $('submit');
  var pw = $('password'), confirm = $('confirm');
  var RULES = {
    length: function (p) { return p.length >= 8; },
    upper: function (p) { return /[A-Z]/.test(p); },
    lower: function (p) { return /[a-z]/.test(p); },
    digit: function (p) { return /[0-9]/.test(p); },
  };
  function showError(text) { error.textContent = text; error.hidden = false; }
  function invalidLink() { status.hidden = true; form.hidden = true; showError(T.invalid); }
  function updateRules() {
    var items = document.querySelectorAll('[data-rule]');
    for (var i = 0; i < items.length; i++) items[i].classList.toggle('met', RULES[items[i].getAttribute('data-rule')](pw.value));
  }
  pw.addEventListener('input', updateRules);
  $('show').addEventListener('change', function (e) { var type = e.target.checked ? 'text' : 'password'; pw.type = type; confirm.type = type; });
  if (!token) return invalidLink();
  fetch('/v1/auth/reset-password/validate?token=' + encodeURIComponent(token), { headers: { accept: 'application/json' } })
    .then(function (r) { return r.ok ? r.json() : { valid: false, status: r.status }; })
    .then(function (b) {
      if (!b.valid) return b.status === 429 ? (status.hidden = true, showError(T.tooMany)) : invalidLink();
      status.hidden = true; form.hidden = false; pw.focus();
    })
    .catch(function () { status.hidden = true; showError(T.failed); });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    error.hidden = true;
    var p = pw.value;
    for (var k in RULES) if (!RULES[k](p)) { showError(T.weak); pw.focus(); return; }
    if (p !== confirm.value) { showError(T.mismatch); confirm.focus(); return; }
    button.disabled = true; button.textContent = T.saving;
    fetch('/v1/auth/reset-password', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ token: token, newPassword: p, locale: LOCALE }),
    })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (b) { return { status: r.status, body: b }; }); })
      .then(function (res) {
        button.disabled = false; button.textContent = T.submit;
        if (res.status === 200) { form.hidden = true; success.hidden = false; success.setAttribute('tabindex', '-1'); success.focus(); token = ''; return; }
        if (res.status === 429) return showError(T.tooMany);
        if (res.status === 503) return showError(T.unavailable);
        var msg = (res.body && (res.body.message || res.body.error)) || T.failed;
        if (res.status === 400 && /invalid or has expired/.test(msg)) return invalidLink();
        if (res.status === 400 && /breach/.test(msg)) return showError(T.breached);
        showError(msg);
      })
      .catch(function () { button.disabled = false; button.textContent = T.submit; showError(T.failed); });
  });
})();
</script>
</body>
</html>`
  return {
    html,
    // the address may hold a token: never sent onwards (no referrer)
    headers: pageHeaders(nonce),
  }
}
