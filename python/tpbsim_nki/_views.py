"""Tensors, views (affine walks over a tensor's row-major element index) and index grids.

A view is a base offset plus one (step, num) pair per axis, in elements of the tensor's flat index,
exactly the kernel form's VIEW; indexing composes patterns and never builds index arrays."""

import numpy as np

from . import _dtypes
from ._errors import misuse, unsupported, user_loc

ON_CHIP = ("sbuf", "psum")


class Tensor:
    __slots__ = ("id", "name", "shape", "dtype", "buffer", "kind", "arg", "file", "encoding",
                 "writeback", "loc", "auto_name")

    def __init__(self, tid, name, shape, dtype, buffer, loc, kind="internal"):
        self.id = tid
        self.name = name
        self.shape = shape
        self.dtype = dtype  # kernel-form name
        self.buffer = buffer  # kernel-form name
        self.kind = kind
        self.arg = None
        self.file = None
        self.encoding = "native"
        self.writeback = False
        self.loc = loc
        self.auto_name = False  # the recorder made the name up: the kernel's variable may replace it

    def base_pattern(self):
        pat = []
        stride = 1
        for n in reversed(self.shape):
            pat.append((stride, n))
            stride *= n
        pat.reverse()
        return tuple(pat)

    def form(self):
        d = {"name": self.name, "shape": list(self.shape), "dtype": self.dtype,
             "buffer": self.buffer, "kind": self.kind}
        if self.kind == "input":
            d["arg"] = self.arg
            d["file"] = self.file
            if self.encoding != "native":
                d["encoding"] = self.encoding
            if self.writeback:
                d["writeback"] = True
        d["loc"] = self.loc
        return d


class DynSlice:
    """nl.ds(start, size): `size` elements from `start`, step 1."""

    __slots__ = ("start", "size")

    def __init__(self, start, size):
        self.start = start
        self.size = size

    def __repr__(self):
        return "nl.ds(%r, %r)" % (self.start, self.size)


def _int(x):
    """x as a Python int, or None when it is not an integer (bool is not an index)."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, np.integer):
        return int(x)
    return None


class IndexExpr:
    """An affine function of the positions along the axes of an index grid:
    const + sum_a coefs[a] * i_a, over a grid whose axis a has sizes[a] positions (1 = broadcast).
    nl.arange(n)[:, None], nl.mgrid[...] and sums / integer multiples of them are IndexExprs."""

    __slots__ = ("sizes", "coefs", "const")

    def __init__(self, sizes, coefs, const):
        self.sizes = sizes
        self.coefs = coefs
        self.const = const

    @property
    def shape(self):
        return self.sizes

    @property
    def ndim(self):
        return len(self.sizes)

    def __repr__(self):
        terms = ["%d*i%d" % (c, a) for a, c in enumerate(self.coefs) if c and self.sizes[a] > 1]
        return "IndexExpr(%s over %s)" % (" + ".join(terms + [str(self.const)]), list(self.sizes))

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        sizes, coefs = [], []
        it = iter(range(len(self.sizes)))
        for k in key:
            if k is None:
                sizes.append(1)
                coefs.append(0)
            elif isinstance(k, slice) and k == slice(None):
                a = next(it, None)
                if a is None:
                    raise misuse("index expression", "too many ':' for an index of %d axes" % len(self.sizes))
                sizes.append(self.sizes[a])
                coefs.append(self.coefs[a])
            else:
                raise unsupported("indexing an index expression with %r (only ':' and None place its axes)" % (k,))
        for a in it:
            sizes.append(self.sizes[a])
            coefs.append(self.coefs[a])
        return IndexExpr(tuple(sizes), tuple(coefs), self.const)

    def _combine(self, other, sign):
        o = _int(other)
        if o is not None:
            return IndexExpr(self.sizes, self.coefs, self.const + sign * o)
        if isinstance(other, IndexExpr):
            r = max(len(self.sizes), len(other.sizes))
            s1, c1 = _pad(self, r)
            s2, c2 = _pad(other, r)
            sizes = []
            for a in range(r):
                if s1[a] != s2[a] and s1[a] != 1 and s2[a] != 1:
                    raise misuse("index expression", "grids of %d and %d positions do not broadcast on axis %d" % (s1[a], s2[a], a))
                sizes.append(max(s1[a], s2[a]))
            coefs = tuple(c1[a] + sign * c2[a] for a in range(r))
            return IndexExpr(tuple(sizes), coefs, self.const + sign * other.const)
        return NotImplemented

    def __add__(self, other):
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, -1)

    def __rsub__(self, other):
        return (-self)._combine(other, 1)

    def __neg__(self):
        return IndexExpr(self.sizes, tuple(-c for c in self.coefs), -self.const)

    def __pos__(self):
        return self

    def __mul__(self, other):
        o = _int(other)
        if o is None:
            if isinstance(other, IndexExpr):
                raise unsupported("multiplying two index expressions (not affine)")
            return NotImplemented
        return IndexExpr(self.sizes, tuple(c * o for c in self.coefs), self.const * o)

    __rmul__ = __mul__

    def _not_affine(self, *a):
        raise unsupported("this operation on an index expression (tpbsim takes affine expressions "
                          "of index grids: sums, differences and integer multiples; masks are not modelled)")

    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __truediv__ = __rtruediv__ = _not_affine
    __lt__ = __le__ = __gt__ = __ge__ = __and__ = __or__ = __xor__ = __invert__ = _not_affine
    __pow__ = __lshift__ = __rshift__ = _not_affine
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self._not_affine()

    __ne__ = __eq__

    def __bool__(self):
        raise unsupported("using an index expression as a truth value")

    def __iter__(self):
        raise unsupported("iterating over an index expression")


def _pad(e, r):
    k = r - len(e.sizes)
    return (1,) * k + e.sizes, (0,) * k + e.coefs


def arange(*args):
    if len(args) == 1:
        start, stop = 0, args[0]
    elif len(args) == 2:
        start, stop = args
    else:
        raise misuse("nl.arange", "takes (stop) or (start, stop), got %d arguments" % len(args))
    s, e = _int(start), _int(stop)
    if s is None or e is None:
        raise misuse("nl.arange", "bounds must be integers, got %r" % (args,))
    return IndexExpr((max(e - s, 0),), (1,), s)


class GridTuple(tuple):
    """The index expressions of nl.mgrid[...]: unpack them, or name them .p, .x, .y, .z."""

    @property
    def p(self):
        return self[0]

    @property
    def x(self):
        return self[1]

    @property
    def y(self):
        return self[2]

    @property
    def z(self):
        return self[3]


class _MGrid:
    def __getitem__(self, key):
        single = not isinstance(key, tuple)
        if single:
            key = (key,)
        r = len(key)
        out = []
        for a, k in enumerate(key):
            if not isinstance(k, slice):
                raise misuse("nl.mgrid", "takes slices start:stop[:step], got %r" % (k,))
            start = 0 if k.start is None else _int(k.start)
            stop = _int(k.stop)
            step = 1 if k.step is None else _int(k.step)
            if start is None or stop is None or step is None or step == 0:
                raise misuse("nl.mgrid", "slice bounds must be integers (step not 0), got %r" % (k,))
            n = max(0, -(-(stop - start) // step))
            sizes = [1] * r
            coefs = [0] * r
            sizes[a] = n
            coefs[a] = step
            out.append(IndexExpr(tuple(sizes), tuple(coefs), start))
        return out[0] if single else GridTuple(out)

    def __repr__(self):
        return "nl.mgrid"


mgrid = _MGrid()


def _slice_axis(k, n, call):
    """(start, step, num) of slice k over an axis of n positions (numpy's defaults and negative
    starts; no clamping: a slice past the end is recorded as written and refused by the lowering)."""
    step = 1 if k.step is None else _int(k.step)
    if step is None or step == 0:
        raise misuse(call, "slice step must be a non-zero integer, got %r" % (k.step,))
    start = None if k.start is None else _int(k.start)
    stop = None if k.stop is None else _int(k.stop)
    if (k.start is not None and start is None) or (k.stop is not None and stop is None):
        raise misuse(call, "slice bounds must be integers, got %r" % (k,))
    if step > 0:
        start = 0 if start is None else (start + n if start < 0 else start)
        stop = n if stop is None else (stop + n if stop < 0 else stop)
    else:
        start = n - 1 if start is None else (start + n if start < 0 else start)
        stop = -1 if stop is None else (stop + n if stop < 0 else stop)
    num = max(0, -(-(stop - start) // step))
    return start, step, num


def _basic(k, s, n, call):
    """(offset, pair or None) of one basic key over an axis (step s, n positions)."""
    if isinstance(k, slice):
        start, step, num = _slice_axis(k, n, call)
        return s * start, (s * step, num)
    if isinstance(k, DynSlice):
        start, size = _int(k.start), _int(k.size)
        if start is None or size is None:
            raise unsupported("nl.ds with a start or size that is not a trace-time integer (%r)" % (k,))
        return s * start, (s, size)
    raise misuse(call, "cannot index with %s" % type(k).__name__)


class View:
    """A tensor or a view of one: what NKI calls an NkiTensor / tile. Indexing and .ap() return new
    views; arithmetic on views is not modelled and raises."""

    __slots__ = ("tensor", "offset", "pattern", "indirect", "_rec")

    def __init__(self, rec, tensor, offset, pattern, indirect=None):
        self._rec = rec
        self.tensor = tensor
        self.offset = offset
        self.pattern = pattern
        self.indirect = indirect

    # --- what kernels read -------------------------------------------------------------------
    @property
    def shape(self):
        return tuple(n for _, n in self.pattern)

    @property
    def ndim(self):
        return len(self.pattern)

    @property
    def size(self):
        n = 1
        for _, k in self.pattern:
            n *= k
        return n

    @property
    def dtype(self):
        return _dtypes.user_dtype(self.tensor.dtype)

    @property
    def buffer(self):
        from . import language
        return language.BUFFERS[self.tensor.buffer]

    @property
    def name(self):
        return self.tensor.name

    @property
    def strides(self):
        return tuple(s for s, _ in self.pattern)

    def get_pattern(self):
        return [[s, n] for s, n in self.pattern]

    def is_indirect(self):
        return self.indirect is not None

    def is_contiguous(self):
        pat = self.pattern[1:] if self.tensor.buffer in ON_CHIP else self.pattern
        want = 1
        for s, n in reversed(pat):
            if n != 1 and s != want:
                return False
            want *= n
        return True

    def __len__(self):
        return self.pattern[0][1] if self.pattern else 1

    def __repr__(self):
        t = self.tensor
        return "<%s %s %s view of tensor %d %r: offset %d pattern %s%s>" % (
            t.buffer, t.dtype, list(self.shape), t.id, t.name, self.offset,
            [list(p) for p in self.pattern], " indirect" if self.indirect else "")

    def is_whole(self):
        return self.offset == 0 and self.indirect is None and self.pattern == self.tensor.base_pattern()

    def form(self):
        d = {"tensor": self.tensor.id, "offset": self.offset, "pattern": [[s, n] for s, n in self.pattern]}
        if self.indirect is not None:
            d["indirect"] = {"index": self.indirect[0].form(), "dim": self.indirect[1]}
        return d

    # --- views ---------------------------------------------------------------------------------
    def __getitem__(self, key):
        return index(self, key, "indexing")

    def __setitem__(self, key, value):
        from . import language
        language.assign(self[key], value, user_loc(2))

    def ap(self, pattern, offset=None, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None):
        call = "tensor.ap"
        pairs = []
        try:
            for p in pattern:
                s, n = p
                si, ni = _int(s), _int(n)
                if si is None or ni is None:
                    raise TypeError
                pairs.append((si, ni))
        except (TypeError, ValueError):
            raise misuse(call, "pattern must be a list of [step, num] integer pairs, got %r" % (pattern,))
        off = self.offset
        if offset is not None:
            o = _int(offset)
            if o is None:
                raise misuse(call, "offset must be an integer, got %r" % (offset,))
            off += o
        if scalar_offset is not None:
            raise unsupported("tensor.ap(scalar_offset=...) (dynamic scalar offsets)")
        if dtype is not None and _dtypes.name_of(dtype) != self.tensor.dtype:
            raise unsupported("tensor.ap(dtype=...) reinterpreting %s as %s" % (self.tensor.dtype, dtype))
        if self.indirect is not None:
            raise unsupported("tensor.ap on a view that is already indirect")
        ind = None
        if vector_offset is not None:
            if not isinstance(vector_offset, View):
                raise misuse(call, "vector_offset must be a tile, got %s" % type(vector_offset).__name__)
            d = _int(indirect_dim)
            if d is None:
                raise misuse(call, "indirect_dim must be an integer, got %r" % (indirect_dim,))
            ind = (vector_offset, d)
        return View(self._rec, self.tensor, off, tuple(pairs), ind)

    def _view_op(self, what):
        if self.indirect is not None:
            raise unsupported("%s on an indirect view" % what)

    def permute(self, dims):
        self._view_op("tensor.permute")
        if sorted(dims) != list(range(len(self.pattern))):
            raise misuse("tensor.permute", "dims %r is not a permutation of %d axes" % (dims, len(self.pattern)))
        return View(self._rec, self.tensor, self.offset, tuple(self.pattern[d] for d in dims))

    def reshape(self, shape):
        self._view_op("tensor.reshape")
        shape = _shape(shape, "tensor.reshape")
        if -1 in shape:
            known = 1
            for n in shape:
                if n != -1:
                    known *= n
            shape = tuple(self.size // known if n == -1 else n for n in shape)
        if _prod(shape) != self.size:
            raise misuse("tensor.reshape", "cannot reshape %s to %s" % (list(self.shape), list(shape)))
        # Merge the view's axes into runs of constant stride, then split them into the new shape.
        runs = []
        for s, n in self.pattern:
            if n == 1:
                continue
            if runs and runs[-1][0] == s * n:
                runs[-1] = (s, runs[-1][1] * n)
            else:
                runs.append((s, n))
        out = []
        ri = 0
        left = runs[0][1] if runs else 1
        for n in shape:
            if n == 1:
                out.append((0, 1))
                continue
            while ri < len(runs) and left == 1:
                ri += 1
                left = runs[ri][1] if ri < len(runs) else 1
            if ri >= len(runs) or left % n:
                raise unsupported("tensor.reshape of %s to %s across non-contiguous axes" % (list(self.shape), list(shape)))
            left //= n
            out.append((runs[ri][0] * left, n))
        return View(self._rec, self.tensor, self.offset, tuple(out))

    def expand_dim(self, dim):
        self._view_op("tensor.expand_dim")
        p = list(self.pattern)
        p.insert(dim, (0, 1))
        return View(self._rec, self.tensor, self.offset, tuple(p))

    def squeeze_dim(self, dim):
        self._view_op("tensor.squeeze_dim")
        if self.pattern[dim][1] != 1:
            raise misuse("tensor.squeeze_dim", "axis %d has %d positions, not 1" % (dim, self.pattern[dim][1]))
        p = list(self.pattern)
        del p[dim]
        return View(self._rec, self.tensor, self.offset, tuple(p))

    def slice(self, dim, start, end, step=1):
        key = [slice(None)] * len(self.pattern)
        key[dim] = slice(start, end, step)
        return index(self, tuple(key), "tensor.slice")

    def select(self, dim, index_):
        if _int(index_) is None:
            raise unsupported("tensor.select with a dynamic index")
        key = [slice(None)] * len(self.pattern)
        key[dim] = index_
        return index(self, tuple(key), "tensor.select")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("tensor.%s" % name, user_loc(2))

    def __class_getitem__(cls, shape):
        return cls  # `a: tensor[128, 64]` annotations

    # --- values: a tile has none at trace time --------------------------------------------------
    def _arith(self, *a):
        raise unsupported("arithmetic on tiles (tile operators)", user_loc(2))

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _arith
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __pos__ = __abs__ = __invert__ = _arith
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __lshift__ = __rshift__ = _arith
    __rlshift__ = __rrshift__ = _arith
    __iadd__ = __isub__ = __imul__ = __itruediv__ = __ifloordiv__ = __imod__ = __ipow__ = _arith
    __iand__ = __ior__ = __ixor__ = __ilshift__ = __irshift__ = __imatmul__ = _arith
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _arith
    __hash__ = object.__hash__

    def __bool__(self):
        raise unsupported("using a tile as a truth value (its values exist only when the kernel runs)", user_loc(2))

    def __iter__(self):
        raise unsupported("iterating over a tile", user_loc(2))

    def __float__(self):
        raise unsupported("converting a tile to a Python number", user_loc(2))

    __int__ = __index__ = __complex__ = __float__

    def __array__(self, *a, **k):
        raise unsupported("converting a tile to a numpy array inside a kernel", user_loc(2))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise unsupported("np.%s on a tile" % ufunc.__name__, user_loc(2))

    def __array_function__(self, func, types, args, kwargs):
        raise unsupported("np.%s on a tile" % getattr(func, "__name__", "function"), user_loc(2))


def _prod(shape):
    n = 1
    for k in shape:
        n *= k
    return n


def _shape(shape, call):
    k = _int(shape)
    if k is not None:
        return (k,)
    try:
        out = tuple(_int(n) for n in shape)
    except TypeError:
        raise misuse(call, "shape must be a tuple of integers, got %r" % (shape,))
    if any(n is None for n in out):
        raise misuse(call, "shape must be a tuple of integers, got %r" % (shape,))
    return out


def index(v, key, call):
    if v.indirect is not None:
        raise unsupported("indexing an indirect view")
    if not isinstance(key, tuple):
        key = (key,)
    nd = len(v.pattern)
    n_ell = 0
    n_real = 0
    for k in key:
        if k is Ellipsis:
            n_ell += 1
        elif k is not None:
            n_real += 1
    if n_ell > 1:
        raise misuse(call, "an index can have only one '...'")
    if n_real > nd:
        raise misuse(call, "%d indices for a view of %d axes %s" % (n_real, nd, list(v.shape)))
    fill = (slice(None),) * (nd - n_real)
    if n_ell:
        i = key.index(Ellipsis)
        key = key[:i] + fill + key[i + 1:]
    else:
        key = key + fill
    advanced = False
    for k in key:
        if isinstance(k, (IndexExpr, View)):
            advanced = True
            break
    on_chip = v.tensor.buffer in ON_CHIP
    if advanced:
        return _advanced(v, key, call, on_chip)
    off = v.offset
    out = []
    d = 0
    for k in key:
        if k is None:
            out.append((0, 1))
            continue
        s, n = v.pattern[d]
        i = _int(k)
        if i is not None:
            if i < 0:
                i += n
            off += s * i
            if on_chip and d == 0:
                out.append((s, 1))
        else:
            o, pair = _basic(k, s, n, call)
            off += o
            out.append(pair)
        d += 1
    if on_chip and len(out) < 2:
        out.extend([(1, 1)] * (2 - len(out)))
    elif not out:
        out.append((1, 1))
    return View(v._rec, v.tensor, off, tuple(out))


def _advanced(v, key, call, on_chip):
    """Indexing with index grids (and ints, and at most one index tile), numpy's advanced-indexing
    placement: the grid's axes replace the indexed axes where they are adjacent, else go first."""
    exprs = []  # (view axis step, IndexExpr)
    tile = None  # (view axis step, View)
    off = v.offset
    adv_pos = []
    basic = []  # (position in key, pair)
    rank = 0
    d = 0
    for pos, k in enumerate(key):
        if k is None:
            basic.append((pos, (0, 1)))
            continue
        s, n = v.pattern[d]
        d += 1
        i = _int(k)
        if i is not None:
            if i < 0:
                i += n
            off += s * i
            adv_pos.append(pos)
        elif isinstance(k, IndexExpr):
            off += s * k.const
            exprs.append((s, k))
            rank = max(rank, len(k.sizes))
            adv_pos.append(pos)
        elif isinstance(k, View):
            if tile is not None:
                raise unsupported("indexing with more than one index tile")
            if k.indirect is not None:
                raise unsupported("an indirect view used as an index tile")
            tile = (s, k)
            rank = max(rank, len(k.pattern))
            adv_pos.append(pos)
        else:
            o, pair = _basic(k, s, n, call)
            off += o
            basic.append((pos, pair))
    rank = max(rank, 1)
    sizes = [1] * rank
    steps = [0] * rank
    for s, e in exprs:
        es, ec = _pad(e, rank)
        for a in range(rank):
            if es[a] != 1:
                if sizes[a] != 1 and sizes[a] != es[a]:
                    raise misuse(call, "index grids of %d and %d positions do not broadcast on axis %d" % (sizes[a], es[a], a))
                sizes[a] = es[a]
                steps[a] += s * ec[a]
    ind_axis = None
    if tile is not None:
        s, t = tile
        tshape = t.shape
        if any(n != 1 for n in tshape[1:]):
            raise unsupported("an index tile of shape %s (tpbsim takes one index per partition: [P, 1])" % (list(tshape),))
        if sizes[0] != 1 and steps[0] != 0:
            raise unsupported("an index tile and an index grid on the same axis")
        if sizes[0] != 1 and sizes[0] != tshape[0]:
            raise misuse(call, "index tile of %d partitions against a grid of %d positions" % (tshape[0], sizes[0]))
        sizes[0] = tshape[0]
        steps[0] = s
        ind_axis = 0
    grid = list(zip(steps, sizes))
    contiguous = adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))
    out = []
    placed = False
    if not contiguous:
        out.extend(grid)
        placed = True
        gpos = 0
    for pos, pair in basic:
        if not placed and pos > adv_pos[0]:
            gpos = len(out)
            out.extend(grid)
            placed = True
        out.append(pair)
    if not placed:
        gpos = len(out)
        out.extend(grid)
    ind = None
    if ind_axis is not None:
        ind = (tile[1], gpos + ind_axis)
    return View(v._rec, v.tensor, off, tuple(out), ind)
