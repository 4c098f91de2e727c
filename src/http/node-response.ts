import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, STATUS_CODES, ServerResponse } from "node:http";

type HeadersArg = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * The node:http response class the server uses. h3 answers with web `Response`s, whose
 * statusText is "" unless someone sets it, and node:http sends that verbatim: `HTTP/1.1 404 `
 * with an empty reason phrase, which some clients and proxies print as the error. Every
 * response (errors, redirects, 204s, node's own 500 fallback) gets the standard phrase of its
 * code instead; an application-chosen text never reaches the wire.
 */
export class StandardReasonResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(statusCode: number, reason?: string | HeadersArg, headers?: HeadersArg): this {
    const phrase = STATUS_CODES[statusCode];
    const given = typeof reason === "string" ? reason : undefined;
    const rest = typeof reason === "string" || reason === undefined ? headers : reason;
    const text = phrase ?? given;
    // An unknown code without a phrase: node fills in its own ("unknown").
    return text ? super.writeHead(statusCode, text, rest) : super.writeHead(statusCode, rest);
  }
}
