// GET /api/v1/instance/languages: the languages a post can be tagged with. Mastodon lists ISO 639-1
// plus a few ISO 639-3 codes with their English names; names come from ICU (Intl.DisplayNames).

const ISO_639_1 =
  "aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu";
const ISO_639_3 = "ast chr ckb csb gsw jbo kab moh nds sco sma smj szl tok zgh";

export interface Language {
  code: string;
  name: string;
}

const CODES: readonly string[] = `${ISO_639_1} ${ISO_639_3}`.split(" ").sort();
const CODE_SET: ReadonlySet<string> = new Set(CODES);

/** Every known language, by code. */
export function listLanguages(): Language[] {
  const names = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });
  return CODES.map((code) => ({ code, name: names.of(code) ?? code }));
}

/** Valid post language code (ISO 639-1 or one of the listed ISO 639-3 codes)? */
export function isKnownLanguage(code: string): boolean {
  return CODE_SET.has(code);
}
