/** A header of a raw RFC 5322 message, unfolded and with RFC 2047 encoded words decoded; '' when absent. */
export function headerValue(raw: string, name: string): string {
  const end = raw.search(/\r?\n\r?\n/);
  const head = (end === -1 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const prefix = `${name.toLowerCase()}:`;
  const line = head.split(/\r?\n/).find((candidate) => candidate.toLowerCase().startsWith(prefix));
  return line === undefined ? '' : decodeEncodedWords(line.slice(prefix.length).trim());
}

const ENCODED_WORD = /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g;

/** `=?UTF-8?Q?Budget_=E2=80=94_today?=` → `Budget — today`; mail clients send non-ASCII subjects this way. */
export function decodeEncodedWords(value: string): string {
  // Whitespace between two encoded words is folding, not content (RFC 2047 §6.2).
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(ENCODED_WORD, (_word, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : Buffer.from(
              text
                .replace(/_/g, ' ')
                .replace(/=([0-9A-Fa-f]{2})/g, (_hex, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
              'latin1',
            );
      return decode(bytes, charset);
    });
}

function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    // An unknown charset label: UTF-8 is what every sender we meet uses.
    return new TextDecoder('utf-8').decode(bytes);
  }
}
