import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import type { Config } from "../../src/config/config.ts";

// A real S3-compatible server (s3rver: the S3 REST API over a folder) on an ephemeral loopback
// port, for the object-storage tests. s3rver checks that a signed request names a known access
// key (S3RVER) but does not recompute V4 signatures: the signing itself is aws4fetch's.

export interface TestS3 {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  bucket: string;
  /** The settings that point a roost config at this bucket (path-style URLs). */
  config: Partial<Config>;
  /** The public URL of an object. */
  objectUrl(key: string): string;
  /** Keys in the bucket, sorted (ListObjectsV2, anonymous: s3rver does not check reads). */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

export const S3_KEY_ID = "S3RVER";
export const S3_SECRET = "S3RVER";

export async function startTestS3(bucket = "roost-media"): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "roost-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    config: {
      mediaStorage: "s3",
      s3Endpoint: endpoint,
      s3Bucket: bucket,
      s3Region: "us-east-1",
      s3AccessKeyId: S3_KEY_ID,
      s3SecretAccessKey: S3_SECRET,
      s3PathStyle: true,
    },
    objectUrl: (key) => `${endpoint}/${bucket}/${key}`,
    async keys() {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const q = new URLSearchParams({ "list-type": "2", ...(token ? { "continuation-token": token } : {}) });
        const xml = await (await fetch(`${endpoint}/${bucket}/?${q}`)).text();
        for (const m of xml.matchAll(/<Key>([^<]+)<\/Key>/g)) out.push(m[1]);
        token = /<NextContinuationToken>([^<]+)</.exec(xml)?.[1];
      } while (token);
      return out.sort();
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
