import { generateKeyPair } from "node:crypto";
import { promisify } from "node:util";
import { emojiStaticPng, processProfileImage } from "./image-tasks.ts";
import { processMediaImage, processMediaThumbnail } from "./media-tasks.ts";
import { signRequestTask } from "./signature-tasks.ts";
import { encryptPushTask } from "./push-tasks.ts";

const generateKeyPairAsync = promisify(generateKeyPair);

/** RSA-2048 key pair for an account's ActivityPub actor (~50-200 ms of CPU: off the main thread). */
async function generateAccountKeyPair(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
  const { publicKey, privateKey } = await generateKeyPairAsync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

export const tasks: Record<string, (payload: any) => unknown> = {
  generateKeyPair: generateAccountKeyPair,
  processProfileImage,
  emojiStaticPng,
  processMediaImage,
  processMediaThumbnail,
  signRequest: signRequestTask,
  encryptPush: encryptPushTask,
};
