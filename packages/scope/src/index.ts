export {
  type After,
  type EndCause,
  endCause,
  type Scope,
  ScopeEnded,
  type ScopeOptions,
  scope,
} from './scope.js';
