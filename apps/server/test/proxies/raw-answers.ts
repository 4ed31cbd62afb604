// Answers read off a raw socket, for tests that speak HTTP/1.1 by hand to a proxy.

/** A raw answer's status, Content-Type, head and body. */
export interface RawAnswer {
  readonly status: number;
  readonly type: string;
  readonly head: string;
  readonly body: string;
}

/** The status and Content-Type an answer's head gives. */
function fieldsOf(head: string): Pick<RawAnswer, 'status' | 'type' | 'head'> {
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]),
    type: /^content-type: *(.*)$/im.exec(head)?.[1] ?? '',
    head,
  };
}

/** One raw answer: its body is everything after its head. */
export function splitRaw(answer: string): RawAnswer {
  const end = answer.indexOf('\r\n\r\n');
  if (end < 0) return { ...fieldsOf(answer), body: '' };
  return { ...fieldsOf(answer.slice(0, end)), body: answer.slice(end + 4) };
}

/** Each answer in `raw`, a keep-alive stream of answers that each have a Content-Length. */
export function answersIn(raw: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return answers;
    const head = rest.slice(0, end);
    const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
    answers.push({ ...fieldsOf(head), body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
}
