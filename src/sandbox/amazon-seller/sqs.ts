/**
 * Amazon SQS as an app reads the queue its Amazon notifications go to (orders.md §3: ORDER_CHANGE is delivered to SQS
 * or EventBridge, never to an HTTP endpoint), at `POST /sandbox/amazon-seller/sqs/` for the queue
 * `sandboxQueueUrl(sandboxUrl)` (sqs-queue.ts), in SQS's AWS JSON 1.0 protocol (Amazon SQS Developer Guide, "Making
 * query API requests using AWS JSON protocol" and "Interpreting Amazon SQS JSON API responses"): `X-Amz-Target:
 * AmazonSQS.<Operation>`, `Content-Type: application/x-amz-json-1.0`, a JSON body naming the `QueueUrl`; answers in that
 * content type with `x-amzn-RequestId`, errors as `{"__type", "message"}` with `x-amzn-query-error: <Query code>;Sender`.
 *
 * Every request is signed with SigV4 (sqs-sigv4.ts) by the sandbox's access key for `us-east-1`/`sqs`, with `host` and
 * `x-amz-date` among the signed headers, within 15 minutes of the sandbox's clock (SQS's Common Errors: RequestExpired
 * "more than 15 minutes"). The refusals' HTTP statuses and Query codes are SQS's (Common Errors: 403 InvalidClientTokenId
 * and MissingAuthenticationToken, 400 IncompleteSignature; 403 SignatureDoesNotMatch, "Signature expired: … is now
 * earlier than … (… - 15 min.)" as SQS answered in aws/aws-sdk-js#401). An operation SQS does not have is
 * `com.amazon.coral.service#UnknownOperationException`, 400, without a message or query code (awslabs/aws-sdk-rust#957);
 * a queue it does not have is `com.amazonaws.sqs#QueueDoesNotExist` (the JSON API responses page's own example).
 * ASSUMPTION: the `__type` of the signature refusals (the JSON protocol's front end, `com.amazon.coral.service#…`), of
 * InvalidParameterValue and InvalidAddress, and every wording no source quotes (the parameter refusals follow LocalStack's
 * copy of SQS's).
 *
 * Operations (the SQS API Reference): ReceiveMessage (`MaxNumberOfMessages` 1–10, default 1; `WaitTimeSeconds` 0–20,
 * default the queue's 0, a long poll answering as soon as a message is there; `VisibilityTimeout` 0–43,200, default the
 * queue's 30; `Messages` or `{}` when none), DeleteMessage (`{}`; an earlier receive's handle succeeds "but the message
 * might not be deleted", which the sandbox takes strictly: it is not; a text that is no handle is ReceiptHandleIsInvalid)
 * and DeleteMessageBatch (1–10 entries, distinct ids of at most 80 letters, digits, `-` and `_`; `Successful` and
 * `Failed`). ASSUMPTION (the sandbox's choice): SQS's other operations answer UnsupportedOperation, as Storelink only
 * reads the queue Amazon writes. Each call is
 * counted as `amazon-seller:sqs.<Operation>`. `GET /sandbox/amazon-seller/sqs-queue` tells the queue's visible and
 * in-flight messages, for tests and the dashboard.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { countCall, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import { DEFAULT_VISIBILITY_S, type ReceivedMessage, sandboxSqsQueueOf } from './sqs-queue.js';
import { amzDateMs, amzDateOf, parseSigV4Authorization, type SigV4Authorization, sha256Hex, sigV4Signature } from './sqs-sigv4.js';

export { sigV4Signature } from './sqs-sigv4.js';

const AWS = SANDBOX_CLIENTS.amazonSqs;
/** The sandbox queue's ARN, as a Notifications API destination names it. */
export const SANDBOX_QUEUE_ARN = `arn:aws:sqs:${AWS.region}:${AWS.accountId}:${AWS.queueName}`;

/** The sandbox queue's URL (`context.sandboxUrl` is `<app url>/sandbox`). */
export function sandboxQueueUrl(sandboxUrl: string): string {
  return `${sandboxUrl}/amazon-seller/sqs/${AWS.accountId}/${AWS.queueName}`;
}

const JSON_1_0 = 'application/x-amz-json-1.0';
const SKEW_MS = 15 * 60_000;
const RECEIVE_MAX = 10;
const WAIT_MAX_S = 20;
const VISIBILITY_MAX_S = 43_200;
const BATCH_MAX = 10;
const OPERATIONS = ['ReceiveMessage', 'DeleteMessage', 'DeleteMessageBatch'] as const;
type Operation = (typeof OPERATIONS)[number];
/** SQS's other operations (the API Reference's list): real, but not the sandbox's to serve. */
const UNSERVED: readonly string[] = [
  'AddPermission',
  'CancelMessageMoveTask',
  'ChangeMessageVisibility',
  'ChangeMessageVisibilityBatch',
  'CreateQueue',
  'DeleteQueue',
  'GetQueueAttributes',
  'GetQueueUrl',
  'ListDeadLetterSourceQueues',
  'ListMessageMoveTasks',
  'ListQueueTags',
  'ListQueues',
  'PurgeQueue',
  'RemovePermission',
  'SendMessage',
  'SendMessageBatch',
  'SetQueueAttributes',
  'StartMessageMoveTask',
  'TagQueue',
  'UntagQueue',
];
type Input = Record<string, unknown>;

interface SqsError {
  status: number;
  type: string;
  message?: string;
  /** The Query protocol's code, sent in `x-amzn-query-error` as `<code>;Sender`. */
  query?: string;
}

const coral = (name: string, status: number, query: string, message: string): SqsError => ({
  status,
  type: `com.amazon.coral.service#${name}`,
  query,
  message,
});
const sqsError = (name: string, query: string, message: string): SqsError => ({
  status: 400,
  type: `com.amazonaws.sqs#${name}`,
  query,
  message,
});

const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const mismatch = (message = SIGNATURE_MISMATCH) => coral('InvalidSignatureException', 403, 'SignatureDoesNotMatch', message);
const incomplete = (message: string) => coral('IncompleteSignatureException', 400, 'IncompleteSignature', message);
const invalidValue = (message: string) => coral('InvalidParameterValueException', 400, 'InvalidParameterValue', message);
const invalidHandle = (handle: string) =>
  sqsError('ReceiptHandleIsInvalid', 'ReceiptHandleIsInvalid', `The input receipt handle "${handle}" is not a valid receipt handle.`);

/** The request's SigV4 parts, or its refusal when they are missing, incomplete or not the sandbox's key's. */
function readAuthorization(request: FastifyRequest): { auth: SigV4Authorization; amzDate: string; at: number } | SqsError {
  const header = request.headers.authorization;
  if (!header)
    return coral('MissingAuthenticationTokenException', 403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
  const auth = parseSigV4Authorization(header);
  if (!auth)
    return incomplete(`Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters. Authorization=${header}`);
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const at = amzDateMs(amzDate);
  if (at === null) return incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
  if (!auth.signedHeaders.includes('host') || !auth.signedHeaders.includes('x-amz-date'))
    return incomplete("'Host' and 'X-Amz-Date' must be among the signed headers.");
  if (auth.accessKeyId !== AWS.accessKeyId)
    return coral('UnrecognizedClientException', 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
  return { auth, amzDate, at };
}

/** The refusal of a credential scope other than the request's date, us-east-1 and sqs. */
function scopeProblem(auth: SigV4Authorization, amzDate: string): SqsError | null {
  const day = amzDate.slice(0, 8);
  if (auth.scope.date !== day)
    return mismatch(
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${auth.scope.date}' != '${day}'`,
    );
  if (auth.scope.region !== AWS.region) return mismatch(`Credential should be scoped to a valid region, not '${auth.scope.region}'.`);
  if (auth.scope.service !== 'sqs' || auth.terminator !== 'aws4_request')
    return mismatch("Credential should be scoped to correct service: 'sqs'.");
  return null;
}

/** The refusal of a request signed more than 15 minutes from `now`, in SQS's words. */
function timeProblem(amzDate: string, at: number, now: number): SqsError | null {
  if (at < now - SKEW_MS)
    return mismatch(`Signature expired: ${amzDate} is now earlier than ${amzDateOf(now - SKEW_MS)} (${amzDateOf(now)} - 15 min.)`);
  if (at > now + SKEW_MS)
    return mismatch(`Signature not yet current: ${amzDate} is still later than ${amzDateOf(now + SKEW_MS)} (${amzDateOf(now)} + 15 min.)`);
  return null;
}

/** The refusal of the request's signature, or null when the sandbox's key signed it within 15 minutes of `now`. */
function signatureProblem(request: FastifyRequest, body: Buffer, now: number): SqsError | null {
  const read = readAuthorization(request);
  if ('status' in read) return read;
  const { auth, amzDate, at } = read;
  const early = scopeProblem(auth, amzDate) ?? timeProblem(amzDate, at, now);
  if (early) return early;
  const bodyHash = sha256Hex(body);
  const declared = request.headers['x-amz-content-sha256'];
  // ASSUMPTION: a declared payload hash that is not the body's is refused as a wrong signature.
  if (typeof declared === 'string' && declared !== bodyHash)
    return mismatch("The provided 'x-amz-content-sha256' header does not match what was computed.");
  const [path = '/', query = ''] = request.url.split(/\?(.*)/s);
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]),
  );
  const expected = sigV4Signature({
    secretAccessKey: AWS.secretAccessKey,
    amzDate,
    scope: auth.scope,
    request: { method: request.method, path, query, headers, signedHeaders: auth.signedHeaders, payloadHash: bodyHash },
  });
  const given = Buffer.from(auth.signature, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, Buffer.from(expected, 'utf8')) ? null : mismatch();
}

/** The refusal of the input's `QueueUrl`, or null when it is the sandbox queue's (any host: SQS routes by its path). */
function queueProblem(input: Input): SqsError | null {
  const given = typeof input.QueueUrl === 'string' ? input.QueueUrl : '';
  let path: string;
  try {
    path = new URL(given).pathname;
  } catch {
    return sqsError('InvalidAddress', 'InvalidAddress', `The address ${given} is not valid for this endpoint.`);
  }
  const match = /\/amazon-seller\/sqs\/(\d{12})\/([^/]+)$/.exec(path);
  if (!match) return sqsError('InvalidAddress', 'InvalidAddress', `The address ${given} is not valid for this endpoint.`);
  if (match[1] !== AWS.accountId || match[2] !== AWS.queueName)
    return sqsError('QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 'The specified queue does not exist.');
  return null;
}

/** An integer parameter within its range (the default when absent); the refusal in LocalStack's copy of SQS's words otherwise. */
function whole(input: Input, name: string, min: number, max: number, fallback: number): number | SqsError {
  const value = input[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  const reason = min === 1 ? `Must be between ${min} and ${max}, if provided.` : `Must be >= ${min} and <= ${max}, if provided.`;
  return invalidValue(`Value ${String(value)} for parameter ${name} is invalid. Reason: ${reason}`);
}

const SYSTEM_ATTRIBUTES = ['SentTimestamp', 'ApproximateReceiveCount', 'ApproximateFirstReceiveTimestamp'] as const;

/** The system attributes asked for by `MessageSystemAttributeNames` (or the older `AttributeNames`), `All` for every one. */
function attributesOf(message: ReceivedMessage, input: Input): Record<string, string> | null {
  const asked = [input.MessageSystemAttributeNames, input.AttributeNames].flatMap((names) => (Array.isArray(names) ? names : []));
  const values: Record<(typeof SYSTEM_ATTRIBUTES)[number], string> = {
    SentTimestamp: String(message.sentAt),
    ApproximateReceiveCount: String(message.receives),
    ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
  };
  const chosen = SYSTEM_ATTRIBUTES.filter((name) => asked.includes('All') || asked.includes(name));
  return chosen.length === 0 ? null : Object.fromEntries(chosen.map((name) => [name, values[name]]));
}

/** The refusal of a batch's entries, by their ids: none, more than ten, an id SQS does not take, or one given twice. */
function batchProblem(ids: readonly string[]): SqsError | null {
  if (ids.length === 0)
    return sqsError(
      'EmptyBatchRequest',
      'AWS.SimpleQueueService.EmptyBatchRequest',
      'There should be at least one DeleteMessageBatchRequestEntry in the request.',
    );
  if (ids.length > BATCH_MAX) {
    const message = `Maximum number of entries per request are ${BATCH_MAX}. You have sent ${ids.length}.`;
    return sqsError('TooManyEntriesInBatchRequest', 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest', message);
  }
  if (ids.some((id) => !/^[A-Za-z0-9_-]{1,80}$/.test(id))) {
    const message =
      'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.';
    return sqsError('InvalidBatchEntryId', 'AWS.SimpleQueueService.InvalidBatchEntryId', message);
  }
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated !== undefined)
    return sqsError('BatchEntryIdsNotDistinct', 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', `Id ${repeated} repeated.`);
  return null;
}

/** The request's JSON object, or null for any other body. */
function readInput(body: Buffer): Input | null {
  try {
    const input = JSON.parse(body.toString('utf8')) as unknown;
    return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Input) : null;
  } catch {
    return null;
  }
}
/** ASSUMPTION: the JSON protocol front end's refusal of a body that is not a JSON object. */
const NOT_JSON: SqsError = {
  status: 400,
  type: 'com.amazon.coral.service#SerializationException',
  message: 'The request body is not a JSON object.',
};

export function registerSandboxSqs(app: FastifyInstance, context: SandboxContext): void {
  const queue = sandboxSqsQueueOf(context);
  // Ends every long poll when the app begins to close (before its server waits for the requests under way), or when
  // the simulators' own instance closes.
  const closing = new AbortController();
  context.closeListeners.push(() => closing.abort());

  const fail = (reply: FastifyReply, error: SqsError) => {
    if (error.query) void reply.header('x-amzn-query-error', `${error.query};Sender`);
    return reply
      .code(error.status)
      .type(JSON_1_0)
      .send({ __type: error.type, ...(error.message === undefined ? {} : { message: error.message }) });
  };

  const receive = async (input: Input, reply: FastifyReply) => {
    const max = whole(input, 'MaxNumberOfMessages', 1, RECEIVE_MAX, 1);
    const wait = whole(input, 'WaitTimeSeconds', 0, WAIT_MAX_S, 0);
    const visibility = whole(input, 'VisibilityTimeout', 0, VISIBILITY_MAX_S, DEFAULT_VISIBILITY_S);
    for (const value of [max, wait, visibility]) if (typeof value !== 'number') return fail(reply, value);
    const [count, waitS, visibilityS] = [max, wait, visibility] as number[];
    // The client going away ends the wait too, and then nothing is taken: a message it would not see stays visible.
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    const signal = AbortSignal.any([closing.signal, gone.signal]);
    const deadline = performance.now() + waitS! * 1000;
    let messages = queue.receive(count!, visibilityS!);
    while (messages.length === 0 && !signal.aborted && deadline > performance.now()) {
      await queue.wait(deadline - performance.now(), signal);
      if (!signal.aborted) messages = queue.receive(count!, visibilityS!);
    }
    // A poll ended by the app's closing frees its connection too, or the closing would wait for the keep-alive timeout.
    if (closing.signal.aborted) void reply.header('connection', 'close');
    if (messages.length === 0) return reply.type(JSON_1_0).send({});
    return reply.type(JSON_1_0).send({
      Messages: messages.map((message) => {
        const attributes = attributesOf(message, input);
        return {
          MessageId: message.id,
          ReceiptHandle: message.handle,
          MD5OfBody: message.md5,
          Body: message.body,
          ...(attributes ? { Attributes: attributes } : {}),
        };
      }),
    });
  };

  const remove = (input: Input, reply: FastifyReply) => {
    const handle = typeof input.ReceiptHandle === 'string' ? input.ReceiptHandle : '';
    if (queue.remove(handle) === 'invalid') return fail(reply, invalidHandle(handle));
    return reply.type(JSON_1_0).send({});
  };

  const removeBatch = (input: Input, reply: FastifyReply) => {
    const entries = Array.isArray(input.Entries) ? (input.Entries as Input[]) : [];
    const ids = entries.map((entry) => (typeof entry?.Id === 'string' ? entry.Id : ''));
    const refused = batchProblem(ids);
    if (refused) return fail(reply, refused);
    const successful: { Id: string }[] = [];
    const failed: { Id: string; SenderFault: boolean; Code: string; Message: string }[] = [];
    entries.forEach((entry, i) => {
      const handle = typeof entry.ReceiptHandle === 'string' ? entry.ReceiptHandle : '';
      if (queue.remove(handle) !== 'invalid') successful.push({ Id: ids[i]! });
      else failed.push({ Id: ids[i]!, SenderFault: true, Code: 'ReceiptHandleIsInvalid', Message: invalidHandle(handle).message! });
    });
    return reply.type(JSON_1_0).send({ Successful: successful, Failed: failed });
  };

  const HANDLERS: Record<Operation, (input: Input, reply: FastifyReply) => unknown> = {
    ReceiveMessage: receive,
    DeleteMessage: remove,
    DeleteMessageBatch: removeBatch,
  };

  void app.register(async (sqs) => {
    // The raw bytes are kept: the signature covers their SHA-256.
    sqs.addContentTypeParser(JSON_1_0, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    sqs.addHook('preClose', async () => closing.abort());
    sqs.addHook('onClose', async () => closing.abort());

    sqs.post('/sqs/', async (request, reply) => {
      void reply.header('x-amzn-RequestId', randomUUID());
      const target = String(request.headers['x-amz-target'] ?? '');
      const operation = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
      const known = OPERATIONS.includes(operation as Operation) || UNSERVED.includes(operation);
      countCall(context, 'amazon-seller', `sqs.${known ? operation : 'unknown'}`);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const refused = signatureProblem(request, body, context.clock.nowMs());
      if (refused) return fail(reply, refused);
      if (UNSERVED.includes(operation))
        return fail(
          reply,
          sqsError(
            'UnsupportedOperation',
            'AWS.SimpleQueueService.UnsupportedOperation',
            `The sandbox queue serves ${OPERATIONS.join(', ')} only.`,
          ),
        );
      if (!OPERATIONS.includes(operation as Operation))
        return fail(reply, { status: 400, type: 'com.amazon.coral.service#UnknownOperationException' });
      const input = readInput(body);
      if (!input) return fail(reply, NOT_JSON);
      const wrongQueue = queueProblem(input);
      if (wrongQueue) return fail(reply, wrongQueue);
      return HANDLERS[operation as Operation](input, reply);
    });
  });

  app.get('/sqs-queue', async () => queue.counts());
}
