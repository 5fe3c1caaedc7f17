# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.Tensor: the Python face of one tensor handle.

Instances are made by the C wrappers (every op returns this class directly).
Methods generated from the schema (_ops.METHODS) are installed at import by
_install_methods; what is written here is what the schema does not say:
metadata, Python protocols, autograd entry points and operators."""
from . import _C
from . import _dtype as _dt
from ._device import _from_c as _device_from_c, device as _device_cls
from ._override_protocol import _PLAIN, _DisableOverrides, _install_subclass_dispatch


class _GradFn:
    """The node that produced a tensor, as much of torch's Node as Python code reads."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name

    def __repr__(self):
        return "<{} object>".format(self._name)


class Tensor(_C.TensorBase):
    """A multi-dimensional array with autograd, like torch.Tensor."""

    def __new__(cls, *args, dtype=None, device=None):
        """The legacy constructor: Tensor(2, 3) is an uninitialised float32 tensor
        of that shape, Tensor([1, 2]) a float32 copy of the data, Tensor() empty."""
        from . import _creation
        if not args:
            made = _creation.empty(0, dtype=dtype or _dt.float32, device=device)
        elif all(type(a) is int for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
            made = _creation.empty(*args, dtype=dtype or _dt.float32, device=device)
        elif len(args) == 1:
            made = _creation.tensor(args[0], dtype=dtype or _dt.float32, device=device)
        else:
            raise TypeError("Tensor(): expected sizes (ints) or one sequence of data")
        self = _C.TensorBase.__new__(cls)
        _C.tensor_set_handle(self, made)
        return self

    # ---- metadata ------------------------------------------------------------
    @property
    def shape(self):
        return Size(_C.tensor_shape(self))

    def size(self, dim=None):
        if dim is None:
            return Size(_C.tensor_shape(self))
        shape = _C.tensor_shape(self)
        return shape[_wrap_dim(dim, len(shape), "size")]

    def stride(self, dim=None):
        strides = _C.tensor_strides(self)
        return strides if dim is None else strides[_wrap_dim(dim, len(strides), "stride")]

    @property
    def dtype(self):
        return _dt._BY_CODE[_C.tensor_dtype(self)]

    @property
    def device(self):
        return _device_from_c(_C.tensor_device(self))

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def ndim(self):
        return _C.tensor_dim(self)

    def dim(self):
        return _C.tensor_dim(self)

    ndimension = dim

    def numel(self):
        return _C.tensor_numel(self)

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    def storage_offset(self):
        return _C.tensor_storage_offset(self)

    def is_contiguous(self, memory_format=None):
        return _C.tensor_is_contiguous(self)

    def data_ptr(self):
        return _C.tensor_data_ptr(self)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    @property
    def _version(self):
        return _C.tensor_version(self)

    @property
    def T(self):
        """The tensor with its dims reversed (a transpose for 2-d)."""
        return self.permute(*range(_C.tensor_dim(self) - 1, -1, -1))

    @property
    def mT(self):
        """The last two dims swapped (a batch of matrices transposed)."""
        return self.transpose(-2, -1)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        from . import _creation
        return _creation.empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                               requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        from . import _creation
        return _creation.zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                               requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        from . import _creation
        return _creation.ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                              requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        from . import _creation
        return _creation.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                              requires_grad=requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from . import _creation
        return _creation.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                                requires_grad=requires_grad)

    # ---- values ----------------------------------------------------------------
    def item(self):
        return _C.tensor_item(self)

    def tolist(self):
        from ._interop import _tolist
        return _tolist(self)

    def __repr__(self, *, tensor_contents=None):
        text = _C.tensor_repr(self).replace("dtype=torch.", "dtype=tensorc.")
        name = _C.tensor_grad_fn_name(self)
        if name and text.endswith(", requires_grad=True)"):  # PyTorch names the node of a non-leaf
            text = text[:-len("requires_grad=True)")] + "grad_fn=<{}>)".format(name)
        return text

    def __bool__(self):
        if _C.tensor_numel(self) != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(_C.tensor_item(self))

    def __float__(self):
        return float(self._one_item("float"))

    def __int__(self):
        return int(self._one_item("int"))

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype is _dt.bool:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._one_item("index"))

    def __format__(self, spec):
        if self.dim() == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def _one_item(self, what):
        if _C.tensor_numel(self) != 1:
            raise ValueError("only one element tensors can be converted to Python scalars ({})".format(what))
        return _C.tensor_item(self)

    def __len__(self):
        shape = _C.tensor_shape(self)
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self):
        if _C.tensor_dim(self) == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element):
        return bool((self == element).any())

    __hash__ = object.__hash__

    # ---- autograd ----------------------------------------------------------------
    @property
    def requires_grad(self):
        return _C.tensor_requires_grad(self)

    @requires_grad.setter
    def requires_grad(self, value):
        _C.tensor_set_requires_grad(self, bool(value))

    def requires_grad_(self, requires_grad=True):
        _C.tensor_set_requires_grad(self, bool(requires_grad))
        return self

    @property
    def grad(self):
        return _C.tensor_grad(self)

    @grad.setter
    def grad(self, value):
        _C.tensor_set_grad(self, value)

    @property
    def is_leaf(self):
        return _C.tensor_is_leaf(self)

    @property
    def grad_fn(self):
        name = _C.tensor_grad_fn_name(self)
        return _GradFn(name) if name else None

    def retain_grad(self):
        _C.tensor_retain_grad(self)

    def detach(self):
        return _C.tensor_detach(self)

    def detach_(self):
        _C.tensor_detach_(self)
        return self

    @property
    def data(self):
        return _C.tensor_detach(self)

    @data.setter
    def data(self, value):
        """Points this Python object at value's memory, keeping requires_grad and .grad as PyTorch's set_data does.

        The object takes a new handle rather than changing the tensor behind the old one, so a call
        running on another thread (without the GIL) keeps the tensor it was given. A kept grad whose
        shape or dtype no longer fits the new data is dropped (PyTorch keeps it and fails later)."""
        if not isinstance(value, _C.TensorBase):
            raise TypeError("Tensor.data must be set to a Tensor, not " + type(value).__name__)
        leaf = _C.tensor_is_leaf(self)
        requires_grad = _C.tensor_requires_grad(self) and leaf
        grad = _C.tensor_grad(self) if leaf else None
        _C.tensor_set_handle(self, _C.tensor_detach(value))
        if requires_grad:
            _C.tensor_set_requires_grad(self, True)
        if grad is not None and grad.shape == self.shape and grad.dtype == self.dtype:
            _C.tensor_set_grad(self, grad)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ---- conversions ---------------------------------------------------------------
    def to(self, *args, **kwargs):
        """to(dtype) / to(device, dtype=None) / to(other), with non_blocking= and copy=."""
        device, dtype, non_blocking, copy = _parse_to(args, kwargs, "to")
        if device is not None:
            device = _device_cls(device)
            if device.type == "cuda" and device.index is None:
                device = _device_cls("cuda", 0)
        if not copy and (dtype is None or dtype is self.dtype) and (device is None or device == self.device):
            return self
        return _C.tc_internal_to_copy(self, dtype, device, non_blocking)

    def cpu(self):
        return self.to("cpu")

    def pin_memory(self):
        """A copy of this CPU tensor in page-locked memory, which CUDA copies to and from
        asynchronously (`.to("cuda", non_blocking=True)`); this tensor itself if already pinned.
        Needs a usable CUDA device."""
        return _C.tensor_pin_memory(self)

    def is_pinned(self):
        """Whether this tensor's memory is page-locked (from pin_memory)."""
        return _C.tensor_is_pinned(self)

    def record_stream(self, stream):
        """Marks this tensor's memory as used by `stream` (a tensorc.cuda.Stream): once freed,
        it is reused only after the work queued on `stream` so far is done."""
        _C.tensor_record_stream(self, *stream._c)

    def cuda(self, device=None):
        return self.to(_device_cls("cuda", device) if isinstance(device, int) else (device or "cuda"))

    def type(self, dtype=None):
        if dtype is None:
            return "tensorc." + {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
                                 "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                                 "float16": "Half", "bfloat16": "BFloat16"}[self.dtype._name] + "Tensor"
        return self.to(dtype)

    def float(self):
        return self.to(_dt.float32)

    def double(self):
        return self.to(_dt.float64)

    def half(self):
        return self.to(_dt.float16)

    def bfloat16(self):
        return self.to(_dt.bfloat16)

    def long(self):
        return self.to(_dt.int64)

    def int(self):
        return self.to(_dt.int32)

    def short(self):
        return self.to(_dt.int16)

    def char(self):
        return self.to(_dt.int8)

    def byte(self):
        return self.to(_dt.uint8)

    def bool(self):
        return self.to(_dt.bool)

    def as_subclass(self, cls):
        return _C.tensor_as_subclass(self, cls)

    def __reduce_ex__(self, protocol):
        """Pickling and copy.copy: the values, dtype and requires_grad (a copy, like torch)."""
        t = self.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        return (_rebuild, (t.tolist() if t.dtype is _dt.bfloat16 else t.numpy().copy(), t.dtype._name,
                           str(self.device), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with _DisableOverrides():
            result = self.detach().clone()
        if type(self) is not Tensor:
            result = _C.tensor_as_subclass(result, type(self))
            result.__dict__.update({k: __import__("copy").deepcopy(v, memo) for k, v in self.__dict__.items()})
        if self.requires_grad:
            result.requires_grad_(True)
        memo[id(self)] = result
        return result

    # ---- the override protocol ---------------------------------------------------------
    def __init_subclass__(cls, **kwargs):
        # A subclass that overrides gets dispatching twins of the hand-written
        # members (.shape, .size(), repr...); plain Tensors pay nothing.
        super().__init_subclass__(**kwargs)
        _install_subclass_dispatch(cls, Tensor)

    @classmethod
    def __tensorc_function__(cls, func, types, args=(), kwargs=None):
        """The default for Tensor subclasses: run func, and give results the subclass."""
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with _DisableOverrides():
            result = func(*args, **kwargs)
        if func in _NOWRAP:  # field reads keep their identity: t.grad is t.grad
            return result
        return _convert(result, cls)


def _rebuild(values, dtype_name, device, requires_grad):
    from . import _creation
    return _creation.tensor(values, dtype=getattr(_dt, dtype_name), device=device, requires_grad=requires_grad)


def _parse_to(args, kwargs, who):
    """(device, dtype, non_blocking, copy) from the argument forms of Tensor.to
    and Module.to: a dtype, a device (str, int or device), a tensor, a bool."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    if kwargs:
        raise TypeError("{}() got an unexpected keyword argument {!r}".format(who, next(iter(kwargs))))
    for a in args:
        if isinstance(a, _dt.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, bool):
            non_blocking = a
        elif isinstance(a, (str, _device_cls)) or (type(a) is int):
            device = a
        else:
            raise TypeError("{}() received an invalid argument of type {}".format(who, type(a).__name__))
    return device, dtype, non_blocking, copy


def _convert(value, cls):
    if cls is Tensor:
        return value
    if isinstance(value, Tensor) and not isinstance(value, cls):
        return _C.tensor_as_subclass(value, cls)
    if isinstance(value, (tuple, list)):
        converted = [_convert(v, cls) for v in value]
        return type(value)(*converted) if hasattr(value, "_fields") else type(value)(converted)
    return value


def _wrap_dim(dim, ndim, what):
    if not isinstance(dim, int):
        raise TypeError("{}(): dim must be an int, not {}".format(what, type(dim).__name__))
    n = max(ndim, 1)
    if dim < -n or dim >= n:
        raise IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -n, n - 1, dim))
    return dim + n if dim < 0 else dim


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as tensorc.Size([...])."""
    __slots__ = ()

    def __repr__(self):
        return "tensorc.Size([{}])".format(", ".join(str(s) for s in self))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


_PLAIN.add(Tensor)
_NOWRAP = frozenset({Tensor.grad.__get__})
_C.set_result_type(Tensor)
