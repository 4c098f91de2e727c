import { readFile, rm } from "node:fs/promises";
import { AwsClient } from "aws4fetch";
import type { App } from "../app.ts";
import type { MediaStore } from "./store.ts";

// Media in an S3-compatible bucket (AWS, MinIO, Garage, R2, Wasabi ...). Requests are signed
// with aws4fetch: SigV4 over the built-in fetch, one small file with no dependencies, where
// @aws-sdk/client-s3 brings ~100 packages and tens of MB of heap for the four calls we make
// (PUT, GET, DELETE of one object; the bucket is never listed: names come from the database).

const IMMUTABLE = "public, max-age=31536000, immutable";
/** An object store that does not answer within this is treated as down (the job retries). */
const TIMEOUT_MS = 60_000;

export interface S3Settings {
  endpoint: URL;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  publicUrl: string;
  pathStyle: boolean;
  acl: string;
}

/** The S3 part of the configuration, checked; throws with a one-line message (at start, in main.ts). */
export function s3Settings(c: App["config"]): S3Settings {
  const missing = (["s3Bucket", "s3Region", "s3AccessKeyId", "s3SecretAccessKey"] as const).filter((k) => !c[k]);
  if (missing.length) throw new Error(`S3 media storage needs ${missing.join(", ")}`);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(c.s3Bucket)) throw new Error(`invalid s3Bucket: ${JSON.stringify(c.s3Bucket)}`);
  const endpoint = parseHttpUrl(c.s3Endpoint || `https://s3.${c.s3Region}.amazonaws.com`, "s3Endpoint");
  const objectBase = c.s3PathStyle
    ? `${endpoint.origin}/${c.s3Bucket}`
    : `${endpoint.protocol}//${c.s3Bucket}.${endpoint.host}`;
  const publicUrl = c.s3PublicUrl ? parseHttpUrl(c.s3PublicUrl, "s3PublicUrl").href.replace(/\/+$/, "") : objectBase;
  return {
    endpoint,
    bucket: c.s3Bucket,
    region: c.s3Region,
    accessKeyId: c.s3AccessKeyId,
    secretAccessKey: c.s3SecretAccessKey,
    publicUrl,
    pathStyle: c.s3PathStyle,
    acl: c.s3Acl,
  };
}

function parseHttpUrl(raw: string, key: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`invalid ${key}: ${JSON.stringify(raw)} is not a URL`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error(`invalid ${key}: ${JSON.stringify(raw)} is not http(s)`);
  return u;
}

/** Stored names are `folder/random.ext`; each segment is encoded on its own. */
const keyPath = (name: string) => name.split("/").map(encodeURIComponent).join("/");

/** A store writing to the configured bucket. */
export function s3MediaStore(app: App, s: S3Settings = s3Settings(app.config)): MediaStore {
  const client = new AwsClient({ accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey, region: s.region, service: "s3" });
  const objectBase = s.pathStyle ? `${s.endpoint.origin}/${s.bucket}` : `${s.endpoint.protocol}//${s.bucket}.${s.endpoint.host}`;
  const objectUrl = (name: string) => `${objectBase}/${keyPath(name)}`;
  const call = (name: string, init: RequestInit) => client.fetch(objectUrl(name), { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });

  const putData = async (name: string, data: Uint8Array, contentType: string) => {
    const headers: Record<string, string> = { "content-type": contentType, "cache-control": IMMUTABLE };
    if (s.acl) headers["x-amz-acl"] = s.acl;
    const res = await call(name, { method: "PUT", body: data as Uint8Array<ArrayBuffer>, headers });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`S3 PUT ${name} failed: HTTP ${res.status}`);
  };

  return {
    kind: "s3",
    putData,
    async putFile(name, localPath, contentType) {
      // Whole files: media are bounded by maxMediaBytes, and a signed PUT needs the length
      // and the payload hash up front (s3rver and several stores refuse streamed chunks).
      await putData(name, await readFile(localPath), contentType);
      await rm(localPath, { force: true });
    },
    async get(name) {
      const res = await call(name, { method: "GET" });
      if (res.status === 404) {
        await res.body?.cancel();
        return undefined;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`S3 GET ${name} failed: HTTP ${res.status}`);
      }
      return new Uint8Array(await res.arrayBuffer());
    },
    async remove(names) {
      for (const name of names) {
        if (!name) continue;
        try {
          const res = await call(name, { method: "DELETE" });
          await res.body?.cancel();
          // 404: already gone, which is what we wanted.
          if (!res.ok && res.status !== 404) app.log.warn("could not remove S3 object", { file: name, status: res.status });
        } catch (err) {
          app.log.warn("could not remove S3 object", { file: name, err });
        }
      }
    },
    url: (name) => `${s.publicUrl}/${keyPath(name)}`,
  };
}
