// What a pickle may do in drivekit's reader: the globals it may name (numpy array reconstruction and plain
// containers' factories, nothing that runs code) and the sizes it may declare (bounds on memory).

export interface PickleLimits {
  /** Largest file read, bytes. */
  maxBytes: number;
  /** Most elements of one numpy array. */
  maxArrayElements: number;
  /** Most items on the stack plus in containers built (a bound on memory). */
  maxItems: number;
  /** Most memo entries. */
  maxMemo: number;
}

export const DEFAULT_PICKLE_LIMITS: PickleLimits = {
  maxBytes: 1 << 30,
  maxArrayElements: 1 << 27,
  maxItems: 1 << 26,
  maxMemo: 1 << 24,
};

/** The globals a pickle may name: numpy array/dtype reconstruction and plain containers' factories. */
export const ALLOWED_GLOBALS = new Set([
  'numpy.core.multiarray._reconstruct',
  'numpy._core.multiarray._reconstruct',
  'numpy.core.multiarray.scalar',
  'numpy._core.multiarray.scalar',
  'numpy.core.numeric._frombuffer',
  'numpy._core.numeric._frombuffer',
  'numpy.ndarray',
  'numpy.dtype',
  '_codecs.encode',
  'collections.defaultdict',
  'collections.OrderedDict',
  'builtins.int',
  'builtins.float',
  'builtins.list',
  'builtins.dict',
  'builtins.str',
  'builtins.set',
  'builtins.frozenset',
  'builtins.tuple',
]);
