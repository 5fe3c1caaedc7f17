/* SPDX-License-Identifier: BSD-3-Clause */
/* Trains a 2-layer MLP (64 -> 64 -> 10) on the handwritten digits set with
 * SGD + momentum, through tensorc's C ABI only: autograd for the gradients,
 * in-place updates under no_grad. Prints the loss per epoch, the held-out
 * accuracy and the dispatch table of one op.
 *
 *   train_digits [path/to/digits.csv.gz] [--epochs N] [--seed S] [--min-accuracy A]
 *
 * Exit codes: 0 trained (and reached --min-accuracy when given); 1 tensorc
 * error; 2 bad arguments or an unreadable/corrupt data file; 3 accuracy below
 * --min-accuracy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tensorc.h"

#define N_PIXELS 64
#define N_CLASSES 10
#define N_HIDDEN 64
#define MAX_ROWS 4096

typedef struct {
  float* pixels;   /* rows x 64, scaled to [0, 1] */
  int64_t* labels; /* rows */
  int rows;
} Dataset;

/* ---- data loading ---------------------------------------------------------- */

/* Reads "p0,...,p63,label" lines. Returns 0, or 2 after printing why not. */
static int load_digits(const char* path, Dataset* d) {
  char line[1024];
  gzFile f = gzopen(path, "rb");
  int lineno = 0;
  if (!f) {
    fprintf(stderr, "train_digits: cannot open '%s': %s\n", path, errno ? strerror(errno) : "gzopen failed");
    return 2;
  }
  d->pixels = malloc(sizeof(float) * N_PIXELS * MAX_ROWS);
  d->labels = malloc(sizeof(int64_t) * MAX_ROWS);
  d->rows = 0;
  if (!d->pixels || !d->labels) {
    gzclose(f);
    fprintf(stderr, "train_digits: out of memory\n");
    return 2;
  }
  while (gzgets(f, line, sizeof line)) {
    char* p = line;
    int k;
    ++lineno;
    if (line[0] == '\n' || line[0] == '\0') continue;
    if (d->rows == MAX_ROWS) {
      fprintf(stderr, "train_digits: '%s' has more than %d rows\n", path, MAX_ROWS);
      gzclose(f);
      return 2;
    }
    for (k = 0; k <= N_PIXELS; ++k) {
      char* end;
      long v = strtol(p, &end, 10);
      const long hi = k < N_PIXELS ? 16 : N_CLASSES - 1;
      const char want = k < N_PIXELS ? ',' : '\n';
      if (end == p || v < 0 || v > hi || (*end != want && !(k == N_PIXELS && (*end == '\0' || *end == '\r')))) {
        int err = 0;
        const char* zmsg = gzerror(f, &err);
        if (err != Z_OK && err != Z_STREAM_END) {
          fprintf(stderr, "train_digits: '%s' is corrupt at line %d: %s\n", path, lineno, zmsg);
          gzclose(f);
          return 2;
        }
        fprintf(stderr,
                "train_digits: '%s' line %d is not a digits row (expected 64 pixels in 0..16 and a label in "
                "0..9, comma-separated; field %d is wrong)\n",
                path, lineno, k + 1);
        gzclose(f);
        return 2;
      }
      if (k < N_PIXELS)
        d->pixels[d->rows * N_PIXELS + k] = (float)v / 16.0f;
      else
        d->labels[d->rows] = v;
      p = end + 1;
    }
    ++d->rows;
  }
  {
    int err = 0;
    const char* msg = gzerror(f, &err);
    gzclose(f);
    if (err != Z_OK && err != Z_STREAM_END) {
      fprintf(stderr, "train_digits: '%s' is corrupt: %s\n", path, msg);
      return 2;
    }
  }
  if (d->rows < 20) {
    fprintf(stderr, "train_digits: '%s' holds %d rows; expected the 1797 digits\n", path, d->rows);
    return 2;
  }
  return 0;
}

/* ---- tensorc helpers ---------------------------------------------------- */

/* Temporaries of one step, released together. */
typedef struct {
  tc_tensor t[64];
  int n;
} Scope;

static tc_tensor keep(Scope* s, tc_tensor t) {
  if (s->n < 64) s->t[s->n++] = t;
  return t;
}
static void scope_release(Scope* s) {
  while (s->n > 0) tc_tensor_release(s->t[--s->n]);
}

#define TRY(call)                                                                       \
  do {                                                                                  \
    if ((call) != TC_OK) {                                                              \
      fprintf(stderr, "train_digits: %s failed: %s\n", #call, tc_last_error_message()); \
      goto fail;                                                                        \
    }                                                                                   \
  } while (0)

/* logits = relu(x @ w1 + b1) @ w2 + b2 */
static tc_status forward(tc_tensor* logits, Scope* s, tc_tensor x, tc_tensor* params) {
  tc_tensor h = NULL, a = NULL;
  tc_status st;
  if ((st = tc_addmm(&h, params[1], x, params[0], NULL, NULL)) != TC_OK) return st;
  keep(s, h);
  if ((st = tc_relu(&a, h)) != TC_OK) return st;
  keep(s, a);
  if ((st = tc_addmm(logits, params[3], a, params[2], NULL, NULL)) != TC_OK) return st;
  keep(s, *logits);
  return TC_OK;
}

/* The rows idx[0..n) as an (n, 64) float32 batch and their (n) int64 labels. */
static tc_status batch_tensors(tc_tensor* x, tc_tensor* labels, const Dataset* d, const int* idx, int n) {
  float* xb = malloc(sizeof(float) * (size_t)n * N_PIXELS);
  int64_t* yb = malloc(sizeof(int64_t) * (size_t)n);
  int64_t xs[2], ys[1];
  int i;
  tc_status st;
  if (!xb || !yb) {
    free(xb);
    free(yb);
    return tc_error_set(TC_ERROR_OUT_OF_MEMORY, "train_digits: out of memory");
  }
  for (i = 0; i < n; ++i) {
    memcpy(xb + (size_t)i * N_PIXELS, d->pixels + (size_t)idx[i] * N_PIXELS, sizeof(float) * N_PIXELS);
    yb[i] = d->labels[idx[i]];
  }
  xs[0] = ys[0] = n;
  xs[1] = N_PIXELS;
  st = tc_tensor_from_data(x, xb, TC_FLOAT32, xs, 2);
  if (st == TC_OK) st = tc_tensor_from_data(labels, yb, TC_INT64, ys, 1);
  free(xb);
  free(yb);
  return st;
}

/* Deterministic shuffle (xorshift), independent of the C library. */
static uint64_t g_rng = 88172645463325252ull;
static uint64_t next_random(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}
static void shuffle(int* a, int n) {
  int i;
  for (i = n - 1; i > 0; --i) {
    int j = (int)(next_random() % (uint64_t)(i + 1)), t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

int main(int argc, char** argv) {
  const char* path = "examples/data/digits.csv.gz";
  int epochs = 30, seed = 0, i, epoch, code = 1, n_train, n_test, correct = 0;
  double min_accuracy = -1.0, accuracy = 0.0;
  const float lr = 0.1f, momentum = 0.9f;
  const int batch = 32;
  Dataset d = {NULL, NULL, 0};
  int* order = NULL;
  tc_tensor params[4] = {NULL, NULL, NULL, NULL}, velocity[4] = {NULL, NULL, NULL, NULL};
  Scope s = {{NULL}, 0};

  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--epochs") && i + 1 < argc)
      epochs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--min-accuracy") && i + 1 < argc)
      min_accuracy = atof(argv[++i]);
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: train_digits [digits.csv.gz] [--epochs N] [--seed S] [--min-accuracy A]\n");
      return 2;
    } else
      path = argv[i];
  }
  if (epochs < 1) {
    fprintf(stderr, "train_digits: --epochs must be at least 1\n");
    return 2;
  }
  if ((code = load_digits(path, &d)) != 0) goto done;
  code = 1;
  g_rng += (uint64_t)seed * 0x9E3779B97F4A7C15ull;
  order = malloc(sizeof(int) * (size_t)d.rows);
  if (!order) goto fail;
  for (i = 0; i < d.rows; ++i) order[i] = i;
  shuffle(order, d.rows);
  n_test = d.rows / 5; /* hold out 20 % */
  n_train = d.rows - n_test;
  printf("digits: %d images from %s; training on %d, holding out %d\n", d.rows, path, n_train, n_test);

  /* Parameters: w ~ N(0, 1/fan_in), b = 0; momentum buffers zero. */
  TRY(tc_manual_seed((uint64_t)seed));
  {
    const int64_t shapes[4][2] = {{N_PIXELS, N_HIDDEN}, {N_HIDDEN, 0}, {N_HIDDEN, N_CLASSES}, {N_CLASSES, 0}};
    const float scales[4] = {0.125f, 0.0f, 0.125f, 0.0f}; /* 1/sqrt(64) */
    const tc_dtype f32 = TC_FLOAT32;
    for (i = 0; i < 4; ++i) {
      tc_tensor r = NULL;
      const size_t nd = shapes[i][1] ? 2 : 1;
      TRY(tc_randn(&r, shapes[i], nd, NULL, &f32, NULL));
      TRY(tc_mul_Scalar(&params[i], r, tc_scalar_float(scales[i])));
      tc_tensor_release(r);
      TRY(tc_tensor_set_requires_grad(params[i], true));
      TRY(tc_zeros_like(&velocity[i], params[i], NULL, NULL));
    }
  }

  for (epoch = 1; epoch <= epochs; ++epoch) {
    double total = 0.0;
    int batches = 0, start;
    shuffle(order, n_train); /* the held-out tail stays put */
    for (start = 0; start < n_train; start += batch) {
      const int n = n_train - start < batch ? n_train - start : batch;
      tc_tensor x = NULL, y = NULL, logits = NULL, loss = NULL;
      tc_scalar item;
      TRY(batch_tensors(&x, &y, &d, order + start, n));
      keep(&s, x);
      keep(&s, y);
      TRY(forward(&logits, &s, x, params));
      TRY(tc_cross_entropy_loss(&loss, logits, y, NULL, NULL, NULL, NULL)); /* mean over the batch */
      keep(&s, loss);
      TRY(tc_tensor_backward(loss, NULL, false, false));
      TRY(tc_tensor_item(&item, loss));
      total += item.u.f;
      ++batches;
      /* v = momentum * v + g; p -= lr * v; under no_grad, in place. */
      TRY(tc_grad_mode_push(false));
      for (i = 0; i < 4; ++i) {
        tc_tensor g = NULL;
        tc_scalar neg_lr = tc_scalar_float(-lr);
        TRY(tc_tensor_grad(&g, params[i]));
        keep(&s, g);
        TRY(tc_mul_inplace_Scalar(velocity[i], tc_scalar_float(momentum)));
        TRY(tc_add_inplace_Tensor(velocity[i], g, NULL));
        TRY(tc_add_inplace_Tensor(params[i], velocity[i], &neg_lr));
        TRY(tc_tensor_set_grad(params[i], NULL));
      }
      TRY(tc_grad_mode_pop());
      scope_release(&s);
    }
    printf("epoch %2d  loss %.4f\n", epoch, total / batches);
  }

  /* Held-out accuracy, without recording. */
  {
    tc_tensor x = NULL, y = NULL, logits = NULL, pred = NULL;
    int64_t predicted[MAX_ROWS];
    const int64_t dim1 = 1;
    TRY(tc_grad_mode_push(false));
    TRY(batch_tensors(&x, &y, &d, order + n_train, n_test));
    keep(&s, x);
    keep(&s, y);
    TRY(forward(&logits, &s, x, params));
    TRY(tc_argmax(&pred, logits, &dim1, NULL));
    keep(&s, pred);
    TRY(tc_tensor_copy_to_buffer(predicted, sizeof(int64_t) * (size_t)n_test, pred));
    TRY(tc_grad_mode_pop());
    for (i = 0; i < n_test; ++i) correct += predicted[i] == d.labels[order[n_train + i]];
    accuracy = (double)correct / n_test;
    scope_release(&s);
  }
  printf("held-out accuracy: %.4f (%d of %d)\n", accuracy, correct, n_test);
  {
    char table[4096];
    size_t needed = 0;
    TRY(tc_op_dump_table(table, sizeof table, &needed, "addmm"));
    printf("\ndispatch table of addmm, the op behind each layer:\n%s", table);
  }
  code = min_accuracy >= 0 && accuracy < min_accuracy ? 3 : 0;
  if (code == 3) fprintf(stderr, "train_digits: accuracy %.4f is below --min-accuracy %.4f\n", accuracy, min_accuracy);
  goto done;

fail:
  code = 1;
done:
  scope_release(&s);
  for (i = 0; i < 4; ++i) {
    tc_tensor_release(params[i]);
    tc_tensor_release(velocity[i]);
  }
  free(order);
  free(d.pixels);
  free(d.labels);
  return code;
}
