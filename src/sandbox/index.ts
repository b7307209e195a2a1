/** The sandbox's public surface: used by the `sandbox` commands, tests and benchmarks. */
export {startSandbox, type Sandbox, type SandboxCounts, type SandboxOptions} from './server.js'
export {CONTROL_ROUTES} from './control-routes.js'
export {CONTROL_PREFIX, DECISIONS, type Decision, OPERATION_SCOPES} from './decisions.js'
export type {DeliveryAttempt} from './deliveries.js'
export type {Limit} from './rate-limit.js'
export type {KeyPair} from './record-store.js'
export {isLoopback} from './guard.js'
