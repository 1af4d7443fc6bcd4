import type MarkdownIt from 'markdown-it';
import type sanitizeHtml from 'sanitize-html';

/**
 * The renderer and the cleaner, loaded when the first comment is rendered: only the API renders
 * comments, and worker processes need not carry them (about 12 MB).
 */
let loaded: { markdown: MarkdownIt; sanitize: typeof sanitizeHtml } | undefined;
function renderers(): NonNullable<typeof loaded> {
  if (!loaded) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const MarkdownItClass = require('markdown-it') as typeof MarkdownIt;
    const sanitize = require('sanitize-html') as typeof sanitizeHtml;
    /* eslint-enable @typescript-eslint/no-require-imports */
    // HTML in a comment is shown as text; links only to the web and mail.
    loaded = { markdown: new MarkdownItClass({ html: false, linkify: true, breaks: true }), sanitize };
  }
  return loaded;
}

/**
 * What a rendered comment may contain, whatever markdown-it produces: a second, independent line of
 * defence, since the dashboard inserts this HTML as is.
 */
const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'strong',
    'em',
    's',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel', 'target'], ol: ['start'], th: ['style'], td: ['style'] },
  allowedStyles: {
    th: { 'text-align': [/^(left|right|center)$/] },
    td: { 'text-align': [/^(left|right|center)$/] },
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  transformTags: {
    // Links leave the tracker without telling the other site where from, and cannot script this tab.
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, rel: 'noopener noreferrer nofollow', target: '_blank' },
    }),
  },
};

/** A comment's Markdown as HTML safe to insert in the page. */
export function renderComment(body: string): string {
  const { markdown, sanitize } = renderers();
  return sanitize(markdown.render(body), ALLOWED);
}
