// RFC 8941 structured field values: dictionaries, inner lists, items and parameters, which is
// what Signature-Input, Signature (RFC 9421) and Content-Digest (RFC 9530) are made of.
// Parsing follows RFC 8941 §4.2 step by step; anything off-grammar throws StructuredFieldError.

export type BareItem =
  | { type: "integer"; value: number }
  | { type: "decimal"; value: number }
  | { type: "string"; value: string }
  | { type: "token"; value: string }
  | { type: "bytes"; value: Buffer }
  | { type: "boolean"; value: boolean };

export type Params = Map<string, BareItem>;
export interface Item {
  kind: "item";
  value: BareItem;
  params: Params;
}
export interface InnerList {
  kind: "list";
  items: Item[];
  params: Params;
}
export type Dictionary = Map<string, Item | InnerList>;

export class StructuredFieldError extends Error {
  override name = "StructuredFieldError";
}

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new StructuredFieldError(`${what} at offset ${this.i}`);
  }
  peek(): string {
    return this.s[this.i] ?? "";
  }
  done(): boolean {
    return this.i >= this.s.length;
  }
  skipSp(): void {
    while (this.peek() === " ") this.i++;
  }
  skipOws(): void {
    while (this.peek() === " " || this.peek() === "\t") this.i++;
  }

  dictionary(): Dictionary {
    const dict: Dictionary = new Map();
    while (!this.done()) {
      const key = this.key();
      if (this.peek() === "=") {
        this.i++;
        dict.set(key, this.member());
      } else {
        dict.set(key, { kind: "item", value: { type: "boolean", value: true }, params: this.params() });
      }
      this.skipOws();
      if (this.done()) return dict;
      if (this.peek() !== ",") this.fail("expected ','");
      this.i++;
      this.skipOws();
      if (this.done()) this.fail("trailing ','");
    }
    return dict;
  }

  member(): Item | InnerList {
    return this.peek() === "(" ? this.innerList() : this.item();
  }

  innerList(): InnerList {
    this.i++; // "("
    const items: Item[] = [];
    for (;;) {
      this.skipSp();
      if (this.peek() === ")") {
        this.i++;
        return { kind: "list", items, params: this.params() };
      }
      items.push(this.item());
      if (this.peek() !== " " && this.peek() !== ")") this.fail("expected ' ' or ')' in inner list");
    }
  }

  item(): Item {
    return { kind: "item", value: this.bareItem(), params: this.params() };
  }

  params(): Params {
    const params: Params = new Map();
    while (this.peek() === ";") {
      this.i++;
      this.skipSp();
      const key = this.key();
      let value: BareItem = { type: "boolean", value: true };
      if (this.peek() === "=") {
        this.i++;
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  key(): string {
    if (!KEY_START.test(this.peek())) this.fail("expected a key");
    const start = this.i;
    while (KEY_CHAR.test(this.peek())) this.i++;
    return this.s.slice(start, this.i);
  }

  bareItem(): BareItem {
    const c = this.peek();
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    if (c === '"') return this.string();
    if (c === ":") return this.bytes();
    if (c === "?") return this.boolean();
    if (TOKEN_START.test(c)) return this.token();
    return this.fail("expected an item");
  }

  number(): BareItem {
    const m = /^(-?)(\d{1,15})(?:\.(\d{1,3}))?/.exec(this.s.slice(this.i));
    if (!m) this.fail("bad number");
    if (m[3] !== undefined && m[2].length > 12) this.fail("decimal too long");
    this.i += m[0].length;
    if (this.peek() === "." || (this.peek() >= "0" && this.peek() <= "9")) this.fail("number too long");
    const value = Number(m[0]);
    return m[3] === undefined ? { type: "integer", value } : { type: "decimal", value };
  }

  string(): BareItem {
    this.i++; // opening quote
    let out = "";
    for (;;) {
      const c = this.s[this.i++];
      if (c === undefined) this.fail("unterminated string");
      if (c === '"') return { type: "string", value: out };
      if (c === "\\") {
        const next = this.s[this.i++];
        if (next !== '"' && next !== "\\") this.fail("bad escape in string");
        out += next;
      } else if (c < " " || c > "~") {
        this.fail("non-printable character in string");
      } else {
        out += c;
      }
    }
  }

  token(): BareItem {
    const start = this.i;
    this.i++;
    while (TOKEN_CHAR.test(this.peek())) this.i++;
    return { type: "token", value: this.s.slice(start, this.i) };
  }

  bytes(): BareItem {
    this.i++; // opening ":"
    const start = this.i;
    while (BASE64_CHAR.test(this.peek())) this.i++;
    if (this.peek() !== ":") this.fail("unterminated byte sequence");
    const b64 = this.s.slice(start, this.i);
    this.i++;
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 === 1) this.fail("bad base64 in byte sequence");
    return { type: "bytes", value: Buffer.from(b64, "base64") };
  }

  boolean(): BareItem {
    const v = this.s[this.i + 1];
    if (v !== "0" && v !== "1") this.fail("bad boolean");
    this.i += 2;
    return { type: "boolean", value: v === "1" };
  }
}

/** Parses a dictionary field value (RFC 8941 §4.2.2). */
export function parseDictionary(value: string): Dictionary {
  const p = new Parser(value.replace(/^ +| +$/g, ""));
  return p.dictionary();
}

export function serializeBareItem(v: BareItem): string {
  switch (v.type) {
    case "integer":
      return String(v.value);
    case "decimal": {
      const s = v.value.toFixed(3).replace(/0+$/, "");
      return s.endsWith(".") ? `${s}0` : s;
    }
    case "string":
      return `"${v.value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    case "token":
      return v.value;
    case "bytes":
      return `:${v.value.toString("base64")}:`;
    case "boolean":
      return v.value ? "?1" : "?0";
  }
}

function serializeParams(params: Params): string {
  let out = "";
  for (const [k, v] of params) out += v.type === "boolean" && v.value ? `;${k}` : `;${k}=${serializeBareItem(v)}`;
  return out;
}

export function serializeItem(item: Item): string {
  return serializeBareItem(item.value) + serializeParams(item.params);
}

/** Canonical serialisation (RFC 8941 §4.1.1.1), as RFC 9421 needs for `@signature-params`. */
export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map(serializeItem).join(" ")})${serializeParams(list.params)}`;
}
