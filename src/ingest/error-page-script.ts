/**
 * The crash-report dialog that `Sentry.showReportDialog` loads from `/api/embed/error-page/` into
 * the page of the application (another origin). Our own small script: the texts the SDK passes in
 * the query (title, labels …) and the prefilled name and e-mail travel as one JSON literal, escaped
 * so that nothing in them can end the script or the literal, and the dialog is built with
 * `textContent` and attributes only, never from markup, so no parameter can inject any.
 *
 * The option names and defaults are those of Sentry's error-page embed; on close the dialog posts
 * `__sentry_reportdialog_closed__` to the window, which the SDK's `onClose` listens for.
 */

export const DIALOG_TEXTS = {
  title: "It looks like we're having issues.",
  subtitle: 'Our team has been notified.',
  subtitle2: "If you'd like to help, tell us what happened below.",
  labelName: 'Name',
  labelEmail: 'Email',
  labelComments: 'What happened?',
  labelClose: 'Close',
  labelSubmit: 'Submit Crash Report',
  errorGeneric: 'An unknown error occurred while submitting your report. Please try again.',
  errorFormEntry: 'Some fields were invalid. Please correct the errors and try again.',
  successMessage: 'Your feedback has been sent. Thank you!',
};
export type DialogTexts = typeof DIALOG_TEXTS;

/** A text longer than this is not a label: it is cut. */
const MAX_TEXT_LENGTH = 500;

export interface DialogConfig {
  /** Where the form is posted when the script cannot tell its own address. */
  endpoint: string;
  texts: DialogTexts;
  name: string;
  email: string;
}

/** The dialog's texts: the defaults, replaced by what the query gives. */
export function dialogTexts(query: Record<string, unknown>): DialogTexts {
  const texts = { ...DIALOG_TEXTS };
  for (const key of Object.keys(texts) as (keyof DialogTexts)[]) {
    const value = query[key];
    if (typeof value === 'string' && value.trim() !== '') texts[key] = value.slice(0, MAX_TEXT_LENGTH);
  }
  return texts;
}

/**
 * JSON that is also safe anywhere in a script: `<`, `>` and `&` cannot close a script element or
 * open a comment when the script is inlined, and U+2028/U+2029 are line ends in older engines.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const STYLE = `
.et-report-dialog-backdrop{position:fixed;inset:0;z-index:2147483647;background:rgba(20,20,30,.55);display:flex;align-items:center;justify-content:center;padding:16px;font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,sans-serif}
.et-report-dialog{box-sizing:border-box;background:#fff;color:#222;border-radius:8px;max-width:520px;width:100%;max-height:100%;overflow:auto;padding:24px;box-shadow:0 10px 40px rgba(0,0,0,.3)}
.et-report-dialog h2{margin:0 0 8px;font-size:20px}
.et-report-dialog p{margin:0 0 6px;color:#555}
.et-report-dialog label{display:block;margin:12px 0 4px;font-weight:600}
.et-report-dialog input,.et-report-dialog textarea{box-sizing:border-box;width:100%;padding:8px;border:1px solid #bbb;border-radius:4px;font:inherit}
.et-report-dialog textarea{min-height:110px;resize:vertical}
.et-report-dialog .et-actions{display:flex;gap:8px;justify-content:flex-end;margin-top:16px;flex-wrap:wrap}
.et-report-dialog button{padding:8px 14px;border-radius:4px;border:1px solid #888;background:#fff;font:inherit;cursor:pointer}
.et-report-dialog button[type=submit]{background:#3b3b8f;border-color:#3b3b8f;color:#fff}
.et-report-dialog .et-message{margin-top:12px;padding:8px;border-radius:4px}
.et-report-dialog .et-error{background:#fde8e8;color:#8a1c1c}
.et-report-dialog .et-success{background:#e6f6ea;color:#1d6b32}
`;

/** The whole script. Only `config` varies, as the JSON literal built by scriptSafeJson. */
export function errorPageScript(config: DialogConfig): string {
  return `/* crash-report dialog */
(function () {
  'use strict';
  var config = ${scriptSafeJson(config)};
  var style = ${scriptSafeJson(STYLE)};
  var script = document.currentScript;
  var endpoint = script && script.src ? script.src : config.endpoint;
  var t = config.texts;
  var doc = document;

  function el(tag, attrs, text) {
    var node = doc.createElement(tag);
    for (var key in attrs) if (Object.prototype.hasOwnProperty.call(attrs, key)) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function field(label, input) {
    var wrap = el('div', {});
    var id = 'et-report-' + input.getAttribute('name');
    input.setAttribute('id', id);
    wrap.appendChild(el('label', { for: id }, label));
    wrap.appendChild(input);
    return wrap;
  }

  var styleNode = el('style', {}, style);
  var backdrop = el('div', { class: 'et-report-dialog-backdrop' });
  var dialog = el('div', { class: 'et-report-dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'et-report-title' });
  var form = el('form', { novalidate: '' });
  var name = el('input', { type: 'text', name: 'name', required: '', maxlength: '128', autocomplete: 'name' });
  var email = el('input', { type: 'email', name: 'email', required: '', maxlength: '75', autocomplete: 'email' });
  var comments = el('textarea', { name: 'comments', required: '', maxlength: '4096' });
  var message = el('div', { class: 'et-message', role: 'status', hidden: '' });
  var close = el('button', { type: 'button' }, t.labelClose);
  var submit = el('button', { type: 'submit' }, t.labelSubmit);
  var actions = el('div', { class: 'et-actions' });
  name.value = config.name;
  email.value = config.email;

  dialog.appendChild(el('h2', { id: 'et-report-title' }, t.title));
  dialog.appendChild(el('p', {}, t.subtitle));
  dialog.appendChild(el('p', {}, t.subtitle2));
  form.appendChild(field(t.labelName, name));
  form.appendChild(field(t.labelEmail, email));
  form.appendChild(field(t.labelComments, comments));
  form.appendChild(message);
  actions.appendChild(close);
  actions.appendChild(submit);
  form.appendChild(actions);
  dialog.appendChild(form);
  backdrop.appendChild(dialog);

  function show(kind, text) {
    message.className = 'et-message ' + (kind === 'error' ? 'et-error' : 'et-success');
    message.textContent = text;
    message.hidden = false;
  }
  function remove() {
    if (backdrop.parentNode) backdrop.parentNode.removeChild(backdrop);
    if (styleNode.parentNode) styleNode.parentNode.removeChild(styleNode);
    window.postMessage('__sentry_reportdialog_closed__', '*');
  }
  close.addEventListener('click', remove);
  backdrop.addEventListener('click', function (event) { if (event.target === backdrop) remove(); });

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (!name.value.trim() || !email.value.trim() || !comments.value.trim()) {
      show('error', t.errorFormEntry);
      return;
    }
    submit.disabled = true;
    var body = 'name=' + encodeURIComponent(name.value) + '&email=' + encodeURIComponent(email.value) +
      '&comments=' + encodeURIComponent(comments.value);
    var request = new XMLHttpRequest();
    request.open('POST', endpoint, true);
    request.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded');
    request.onreadystatechange = function () {
      if (request.readyState !== 4) return;
      if (request.status === 200) {
        form.removeChild(actions);
        name.disabled = email.disabled = comments.disabled = true;
        show('success', t.successMessage);
        var done = el('button', { type: 'button' }, t.labelClose);
        done.addEventListener('click', remove);
        var doneActions = el('div', { class: 'et-actions' });
        doneActions.appendChild(done);
        form.appendChild(doneActions);
      } else {
        submit.disabled = false;
        show('error', request.status === 400 ? t.errorFormEntry : t.errorGeneric);
      }
    };
    request.send(body);
  });

  (doc.head || doc.body).appendChild(styleNode);
  doc.body.appendChild(backdrop);
})();
`;
}
