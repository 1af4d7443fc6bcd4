/**
 * Comment HTML arrives sanitised by the server; this second pass in the browser keeps a mistake there
 * from becoming script here, and keeps the page within its Content-Security-Policy: images become
 * links (the policy blocks other sites' images, which would also tell those sites who reads the issue;
 * and the tracker stores no images of its own).
 */

const DROPPED =
  'script, style, iframe, frame, frameset, object, embed, applet, form, input, button, textarea, select, ' +
  'option, link, meta, base, svg, math, template, noscript';
const URL_ATTRIBUTES = new Set(['href', 'src', 'xlink:href', 'action', 'formaction', 'poster', 'background']);
/** http(s), mailto, and relative addresses (no scheme at all). */
const SAFE_URL = /^(https?:|mailto:|[^:]*$)/i;

function resolve(address: string): URL | null {
  try {
    return new URL(address, window.location.href);
  } catch {
    return null;
  }
}

export function scrubHtml(html: string): string {
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${html}</body>`, 'text/html');
  doc.body.querySelectorAll(DROPPED).forEach((element) => element.remove());
  for (const element of [...doc.body.querySelectorAll('*')]) {
    // Table alignment arrives as an inline style, which the policy refuses: a class says the same.
    const align = /text-align:\s*(left|right|center)/i.exec(element.getAttribute('style') ?? '');
    if (align && (element.tagName === 'TH' || element.tagName === 'TD'))
      element.classList.add(`align-${align[1].toLowerCase()}`);
    for (const attribute of [...element.attributes]) {
      const name = attribute.name.toLowerCase();
      const badUrl =
        URL_ATTRIBUTES.has(name) && !SAFE_URL.test(attribute.value.replace(/[\s\u0000-\u001f]/g, ''));
      if (name.startsWith('on') || name === 'style' || name === 'srcset' || badUrl)
        element.removeAttribute(attribute.name);
    }
    if (element.tagName === 'IMG') {
      const src = element.getAttribute('src');
      const url = src ? resolve(src) : null;
      const text = `image: ${element.getAttribute('alt') || url?.pathname.split('/').pop() || 'untitled'}`;
      // Inside a link already, the words are enough.
      if (element.closest('a')) {
        element.replaceWith(doc.createTextNode(text));
        continue;
      }
      const link = doc.createElement('a');
      link.textContent = text;
      if (url && /^https?:$/.test(url.protocol)) link.setAttribute('href', url.href);
      element.replaceWith(link);
    }
  }
  for (const link of [...doc.body.querySelectorAll('a[href]')]) {
    const url = resolve(link.getAttribute('href') ?? '');
    if (url && url.origin !== window.location.origin) {
      link.setAttribute('target', '_blank');
      link.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  }
  return doc.body.innerHTML;
}
