/** Reading the e-mails a test SMTP server captured. */

/** Decodes what nodemailer may quoted-printable encode, enough for assertions on the text. */
export function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A header of a raw message, its folded lines joined. */
export function mailHeader(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((entry) => entry.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** Everything after the headers, decoded. */
export function mailBody(raw: string): string {
  return decodeQuotedPrintable(
    raw
      .split(/\r?\n\r?\n/)
      .slice(1)
      .join('\n\n'),
  );
}
