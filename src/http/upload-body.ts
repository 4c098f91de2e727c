import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import busboy from "busboy";
import type { H3Event } from "h3";
import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { ensureStagingDir, newStagedPath, removeStaged } from "../media/staging.ts";
import { Params, parseQueryString, readAppParams, setNested, type Value } from "./params.ts";

// Upload bodies (POST /api/v1/media ...): multipart files are streamed to the staging area as
// they arrive, never held in memory (readAppParams buffers whole bodies, fine for forms but
// not for 20 photos at once). Other fields become Params as usual; other content types go
// through readAppParams (and carry no file).

export interface UploadedFile {
  /** In the staging area; a service that keeps the file moves it from here. */
  path: string;
  size: number;
  /** The name the client gave the file ("" when none). */
  filename: string;
}

export interface UploadBody {
  params: Params;
  files: Record<string, UploadedFile>;
  /** Removes the staged files still in place (call when the request is done). */
  discard(): Promise<void>;
}

const FIELDS_ALLOWANCE = 1024 * 1024; // the non-file fields of an upload: alt text, focus...
const MAX_PARTS = 1000;

/**
 * The request body as a Node stream: on Node, the IncomingMessage itself (no web-stream
 * round trip per chunk: less main-thread work and garbage for large uploads); elsewhere the
 * web body converted.
 */
function requestStream(event: H3Event): Readable {
  const node = (event.req as { runtime?: { node?: { req?: unknown } } }).runtime?.node?.req;
  if (node instanceof Readable) return node;
  const body = event.req.body as unknown as WebReadableStream<Uint8Array> | null;
  return body ? Readable.fromWeb(body) : Readable.from([]);
}

const malformed = () => new ApiError(400, "Malformed multipart body");
const tooLarge = () => new ApiError(413, "Payload Too Large");

/**
 * Reads an upload request. `fileLimits` names the file fields kept, each with its largest
 * size in bytes: a larger file, or a body larger than the largest limit plus room for the
 * fields, is a 413. File parts under other names are read and dropped.
 */
export async function readUploadBody(app: App, event: H3Event, fileLimits: Record<string, number>): Promise<UploadBody> {
  const contentType = event.req.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
    return { params: await readAppParams(app, event), files: {}, discard: async () => {} };
  }
  const bodyLimit = Math.max(0, ...Object.values(fileLimits)) + FIELDS_ALLOWANCE;
  const declared = Number(event.req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > bodyLimit) throw tooLarge();
  await ensureStagingDir(app);

  const files: Record<string, UploadedFile> = {};
  const staged: string[] = [];
  const discard = () => removeStaged(staged);
  const fields: { [k: string]: Value } = Object.create(null);
  try {
    await parse(app, event, contentType, bodyLimit, fileLimits, files, staged, fields);
  } catch (err) {
    await discard();
    throw err;
  }
  const merged = parseQueryString(event.url.search);
  Object.assign(merged, fields);
  const params = new Params(merged);
  // As readParams does: auth may read a token sent as a body parameter.
  (event.context as { apiParams?: Params }).apiParams = params;
  return { params, files, discard };
}

function parse(
  app: App,
  event: H3Event,
  contentType: string,
  bodyLimit: number,
  fileLimits: Record<string, number>,
  files: Record<string, UploadedFile>,
  staged: string[],
  fields: { [k: string]: Value },
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { "content-type": contentType },
        limits: { fieldSize: FIELDS_ALLOWANCE, parts: MAX_PARTS, fieldNameSize: 200 },
      });
    } catch {
      reject(malformed()); // no boundary: not multipart after all
      return;
    }
    let failure: ApiError | undefined;
    let settled = false;
    const writes: Promise<void>[] = [];
    const open = new Set<NodeJS.WritableStream>();
    const fail = (e: ApiError) => {
      failure ??= e;
    };
    /** Once every staged file is closed: resolve, or reject with the first failure. */
    const finish = (fallback?: ApiError) => {
      if (settled) return;
      settled = true;
      for (const out of open) out.end();
      void Promise.all(writes).then(() => (failure || fallback ? reject(failure ?? fallback) : resolve()));
    };

    parser.on("file", (name, stream, info) => {
      const max = Object.hasOwn(fileLimits, name) ? fileLimits[name] : undefined;
      if (max === undefined || files[name] || failure || settled) {
        stream.resume();
        return;
      }
      const path = newStagedPath(app);
      staged.push(path);
      const file: UploadedFile = { path, size: 0, filename: info.filename ?? "" };
      files[name] = file;
      const out = createWriteStream(path);
      open.add(out);
      writes.push(
        new Promise<void>((done) => {
          out.on("close", () => {
            open.delete(out);
            done();
          });
          out.on("error", (err) => {
            app.log.warn("could not stage an upload", { err: err.message });
            fail(new ApiError(500, "Internal server error"));
            stream.resume();
          });
        }),
      );
      stream.on("data", (chunk: Buffer) => {
        file.size += chunk.length;
        if (file.size > max) {
          fail(tooLarge());
          return; // the rest is read and dropped
        }
        if (!out.write(chunk)) {
          stream.pause();
          out.once("drain", () => stream.resume());
        }
      });
      stream.on("end", () => out.end());
      stream.on("error", () => out.end());
    });
    parser.on("field", (name, value) => setNested(fields, name, value));
    parser.on("partsLimit", () => fail(tooLarge()));
    parser.on("error", () => {
      source.unpipe(parser);
      source.resume();
      finish(malformed());
    });
    parser.on("close", () => finish());

    let received = 0;
    let cutOff = false;
    const source = requestStream(event);
    source.on("data", (chunk: Uint8Array) => {
      received += chunk.length;
      if (received > bodyLimit && !cutOff && !settled) {
        cutOff = true;
        fail(tooLarge());
        // Stop parsing; read (and drop) what the client still sends, then answer.
        source.unpipe(parser);
        source.resume();
        source.once("end", () => finish());
      }
    });
    source.on("error", () => finish(malformed()));
    source.pipe(parser);
  });
}
