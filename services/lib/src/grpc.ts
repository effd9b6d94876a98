/**
 * gRPC helpers (@grpc/grpc-js) shared by the services: AppError ↔ gRPC status mapping at the
 * edge, a server that binds a port, and promise wrappers for unary client calls.
 */
import {
  Server,
  ServerCredentials,
  credentials,
  status,
  Metadata,
  type ServiceError,
  type UntypedServiceImplementation,
  type ServiceDefinition,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { AppError, toAppError, type ErrorCode } from '@tradewind/contracts';
import type { Logger } from './logger.js';

export { Metadata, credentials as grpcCredentials, status as grpcStatus } from '@grpc/grpc-js';

/** AppError code → gRPC status code (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
const TO_GRPC: Readonly<Record<ErrorCode, status>> = {
  invalid_argument: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  permission_denied: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  conflict: status.ALREADY_EXISTS,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
};

const FROM_GRPC = new Map<number, ErrorCode>([
  [status.INVALID_ARGUMENT, 'invalid_argument'],
  [status.UNAUTHENTICATED, 'unauthenticated'],
  [status.PERMISSION_DENIED, 'permission_denied'],
  [status.NOT_FOUND, 'not_found'],
  [status.ALREADY_EXISTS, 'conflict'],
  [status.RESOURCE_EXHAUSTED, 'resource_exhausted'],
  [status.UNAVAILABLE, 'unavailable'],
  [status.DEADLINE_EXCEEDED, 'unavailable'],
]);

/**
 * Wraps a promise-returning handler as a grpc-js unary handler. AppErrors become their gRPC status
 * with the message; anything else is logged once and answered INTERNAL "internal error".
 */
export function unary<Req, Res>(logger: Logger, method: string, fn: (request: Req, metadata: Metadata) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    fn(call.request, call.metadata).then(
      (res) => callback(null, res),
      (err: unknown) => {
        const appErr = toAppError(err);
        if (appErr.code === 'internal') logger.error({ err, grpc_method: method }, 'grpc call failed');
        callback(
          {
            code: TO_GRPC[appErr.code],
            details: appErr.code === 'internal' ? 'internal error' : appErr.message,
            metadata: new Metadata(),
          } as Partial<ServiceError> as ServiceError,
          null,
        );
      },
    );
  };
}

/** A gRPC error from a client call as an AppError (UNAVAILABLE/DEADLINE_EXCEEDED → unavailable; others by code). */
export function fromGrpcError(err: unknown): AppError {
  const e = err as Partial<ServiceError>;
  if (typeof e?.code === 'number') return new AppError(FROM_GRPC.get(e.code) ?? 'internal', e.details ?? e.message ?? 'grpc error', { cause: err });
  return toAppError(err);
}

/**
 * Starts a grpc-js server with `services` on `host:port` (0 = any free port).
 * @returns the bound port and a `stop()` that lets in-flight calls finish for up to `graceMs` (default 5 000) then forces.
 */
export async function startGrpcServer(
  services: ReadonlyArray<{ definition: ServiceDefinition; implementation: UntypedServiceImplementation }>,
  address: { host: string; port: number },
  options: { graceMs?: number } = {},
): Promise<{ port: number; stop(): Promise<void> }> {
  const server = new Server();
  for (const s of services) server.addService(s.definition, s.implementation);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${address.host}:${address.port}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
  });
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, options.graceMs ?? 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

/**
 * Calls a ts-proto unary client method as a promise with a deadline.
 * @param deadlineMs per-call deadline (default 5 000 ms).
 * @throws AppError mapped from the gRPC status ({@link fromGrpcError}).
 */
export function callUnary<Req, Res>(
  method: (request: Req, metadata: Metadata, options: { deadline: Date }, callback: (err: ServiceError | null, res: Res) => void) => unknown,
  request: Req,
  options: { deadlineMs?: number; requestId?: string } = {},
): Promise<Res> {
  const metadata = new Metadata();
  if (options.requestId) metadata.set('x-request-id', options.requestId);
  return new Promise<Res>((resolve, reject) => {
    method(request, metadata, { deadline: new Date(Date.now() + (options.deadlineMs ?? 5_000)) }, (err, res) =>
      err ? reject(fromGrpcError(err)) : resolve(res),
    );
  });
}
