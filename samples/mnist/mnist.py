#!/usr/bin/env python3
"""Distributed MNIST training for a Kubeflow TFJob (TensorFlow 2, MultiWorkerMirroredStrategy).

Every replica of the TFJob (Chief + Workers) runs this same program. The training operator
gives each pod a TF_CONFIG environment variable naming the whole cluster and the pod's own
task; tf.distribute.MultiWorkerMirroredStrategy reads it and all-reduces the gradients
across the replicas (NCCL on GPUs). Without TF_CONFIG it trains alone.

What lands on the shared volume (the TFJob mounts the PVC at /train):
  --data-dir    mnist.npz (Keras' format) is read from here when present; otherwise it is
                downloaded with tf.keras.datasets.mnist and the chief keeps a copy here.
  --model-dir   checkpoints (tf.train.CheckpointManager); a restarted job resumes from the
                latest one.
  --log-dir     TensorBoard event files (chief only): `tensorboard --logdir /train/logs`.
  --export-dir  the chief's SavedModel under a numeric version directory,
                <export-dir>/<version>/saved_model.pb, which TensorFlow Serving loads
                (it serves the highest version and ignores anything non-numeric).
Workers write their copies of checkpoints and exports to scratch directories that are
deleted: every replica has to take part in saving (the variables are mirrored and saving
runs collective ops), but only the chief's copy is kept.

The serving signature `serving_default` takes `images` (float32 [N, 28, 28], pixel values
0..255 as in the dataset) and returns `probabilities` [N, 10] and `classes` [N].
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

MNIST_FILE = "mnist.npz"


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Train MNIST with MultiWorkerMirroredStrategy and export a SavedModel.")
    p.add_argument("--data-dir", default="/train/data",
                   help="where mnist.npz is read from (and cached to by the chief)")
    p.add_argument("--model-dir", default="/train/checkpoints",
                   help="checkpoint directory on the shared volume")
    p.add_argument("--log-dir", default="/train/logs", help="TensorBoard log directory")
    p.add_argument("--export-dir", default="/train/export/mnist",
                   help="SavedModel base directory; the model goes to <export-dir>/<version>")
    p.add_argument("--epochs", type=int, default=5, help="passes over the training set")
    p.add_argument("--batch-size", type=int, default=64,
                   help="batch size per replica (the global batch is this times the replicas)")
    p.add_argument("--learning-rate", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--steps-per-epoch", type=int, default=0,
                   help="limit the steps of each epoch (0: the whole training set)")
    p.add_argument("--model-version", type=int, default=0,
                   help="export version number (0: one more than the highest already there)")
    p.add_argument("--no-download", action="store_true",
                   help="fail instead of downloading when mnist.npz is not in --data-dir")
    args = p.parse_args(argv)
    if args.epochs < 1:
        p.error("--epochs must be at least 1")
    if args.batch_size < 1:
        p.error("--batch-size must be at least 1")
    if args.steps_per_epoch < 0 or args.model_version < 0:
        p.error("--steps-per-epoch and --model-version must not be negative")
    return args


def log(msg):
    print(f"[mnist {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def task_from_tf_config():
    """(task_type, task_index, has_chief, n_tasks) from TF_CONFIG, as the operator sets it."""
    raw = os.environ.get("TF_CONFIG", "")
    if not raw:
        return None, 0, False, 1
    try:
        cfg = json.loads(raw)
        cluster = cfg.get("cluster", {})
        task = cfg.get("task", {})
        n = sum(len(v) for k, v in cluster.items() if k in ("chief", "worker"))
        return task.get("type"), int(task.get("index", 0)), "chief" in cluster, max(n, 1)
    except (ValueError, AttributeError, TypeError) as e:
        sys.exit(f"error: TF_CONFIG is not valid JSON of the form "
                 f'{{"cluster":{{...}},"task":{{"type":..,"index":..}}}}: {e}')


def is_chief(task_type, task_index, has_chief):
    # The chief saves for everyone; without a chief replica, worker 0 takes the role
    # (the same rule as the training operator's job-role=master label).
    if task_type is None:
        return True
    if task_type == "chief":
        return True
    return task_type == "worker" and task_index == 0 and not has_chief


def load_mnist(data_dir, chief, allow_download):
    """Returns ((x_train, y_train), (x_test, y_test)) as uint8 numpy arrays."""
    import numpy as np
    import tensorflow as tf

    path = os.path.join(data_dir, MNIST_FILE)
    if os.path.isfile(path):
        log(f"reading {path}")
        with np.load(path, allow_pickle=False) as f:
            return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
    if not allow_download:
        sys.exit(f"error: {path} not found and --no-download was given: copy Keras' "
                 f"mnist.npz there (e.g. kubectl cp mnist.npz <pod>:{path})")
    log(f"{path} not found: downloading with tf.keras.datasets.mnist")
    try:
        # Downloads into this pod's ~/.keras/datasets, so replicas never race on the volume.
        (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
    except Exception as e:  # network errors surface as many exception types
        sys.exit(f"error: cannot download MNIST ({e}). In a cluster without internet access "
                 f"put Keras' mnist.npz at {path} on the volume and resubmit.")
    if chief:
        try:
            os.makedirs(data_dir, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".mnist-", suffix=".npz", dir=data_dir)
            with os.fdopen(fd, "wb") as f:
                np.savez(f, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)
            os.replace(tmp, path)  # atomic: readers never see half a file
            log(f"cached the dataset at {path}")
        except OSError as e:
            log(f"warning: could not cache the dataset at {path}: {e}")
    return (x_train, y_train), (x_test, y_test)


def build_model(tf):
    return tf.keras.Sequential([
        tf.keras.layers.Input(shape=(28, 28)),
        tf.keras.layers.Rescaling(1.0 / 255),
        tf.keras.layers.Reshape((28, 28, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(64, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(10),
    ])


def next_version(export_dir):
    """One more than the highest numeric version directory already exported."""
    try:
        versions = [int(n) for n in os.listdir(export_dir) if n.isdigit()]
    except FileNotFoundError:
        versions = []
    return max(versions, default=0) + 1


def scratch_dir(base, task_type, task_index):
    """Where a non-chief replica writes what only the chief keeps (deleted afterwards)."""
    return os.path.join(tempfile.gettempdir(), f"mnist-{task_type}-{task_index}",
                        os.path.basename(os.path.normpath(base)))


def main(argv=None):
    args = parse_args(argv)
    task_type, task_index, has_chief, n_tasks = task_from_tf_config()
    chief = is_chief(task_type, task_index, has_chief)

    import tensorflow as tf  # imported late so --help and flag errors are instant

    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    log(f"TensorFlow {tf.__version__}, task {task_type or 'standalone'}:{task_index}"
        f"{' (chief)' if chief else ''}, {len(gpus)} GPU(s) visible")

    # NCCL all-reduce across the GPUs of all replicas; ring (gRPC) on CPU-only pods.
    comm = (tf.distribute.experimental.CommunicationImplementation.NCCL if gpus
            else tf.distribute.experimental.CommunicationImplementation.AUTO)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        communication_options=tf.distribute.experimental.CommunicationOptions(
            implementation=comm))
    replicas = strategy.num_replicas_in_sync
    global_batch = args.batch_size * replicas
    log(f"{replicas} replica(s) in sync across {n_tasks} task(s); global batch {global_batch}")

    (x_train, y_train), (x_test, y_test) = load_mnist(args.data_dir, chief, not args.no_download)
    x_train, x_test = x_train.astype("float32"), x_test.astype("float32")
    y_train, y_test = y_train.astype("int64"), y_test.astype("int64")

    options = tf.data.Options()
    # In-memory arrays have no files to shard: every task keeps 1/n of the batches.
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
                .shuffle(60000, seed=42, reshuffle_each_iteration=True)
                .batch(global_batch, drop_remainder=True)
                .with_options(options).prefetch(tf.data.AUTOTUNE))
    test_ds = (tf.data.Dataset.from_tensor_slices((x_test, y_test))
               .batch(global_batch).with_options(options))
    steps = len(x_train) // global_batch
    if args.steps_per_epoch:
        steps = min(steps, args.steps_per_epoch)
    dist_train = strategy.experimental_distribute_dataset(train_ds)
    dist_test = strategy.experimental_distribute_dataset(test_ds)

    with strategy.scope():
        model = build_model(tf)
        optimizer = tf.keras.optimizers.Adam(learning_rate=args.learning_rate)
        epoch = tf.Variable(0, dtype=tf.int64, trainable=False, name="epoch")

    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=epoch)
    ckpt_dir = args.model_dir if chief else scratch_dir(args.model_dir, task_type, task_index)
    manager = tf.train.CheckpointManager(checkpoint, ckpt_dir, max_to_keep=3)
    # Every replica restores from the chief's checkpoints so they all resume alike.
    latest = tf.train.latest_checkpoint(args.model_dir)
    if latest:
        checkpoint.restore(latest)
        log(f"resumed from {latest} at epoch {int(epoch.numpy())}")

    def correct(labels, logits):
        return tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, axis=1), labels), tf.float32))

    def train_step(inputs):
        images, labels = inputs
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            per_example = tf.keras.losses.sparse_categorical_crossentropy(
                labels, logits, from_logits=True)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss, correct(labels, logits)

    # Sums over the replicas are returned and accumulated here rather than in Keras metric
    # objects, whose replica-context behaviour differs between Keras 2 and Keras 3.
    @tf.function
    def distributed_train_step(inputs):
        loss, right = strategy.run(train_step, args=(inputs,))
        return (strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None),
                strategy.reduce(tf.distribute.ReduceOp.SUM, right, axis=None))

    @tf.function
    def distributed_test_step(inputs):
        def step(batch):
            images, labels = batch
            return correct(labels, model(images, training=False))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(step, args=(inputs,)),
                               axis=None)

    writer = (tf.summary.create_file_writer(args.log_dir) if chief
              else tf.summary.create_noop_writer())
    start_epoch = int(epoch.numpy())
    if start_epoch >= args.epochs:
        log(f"already trained {start_epoch} epoch(s) (--epochs={args.epochs}): exporting only")
    for e in range(start_epoch, args.epochs):
        t0 = time.time()
        loss_sum = right_sum = 0.0
        it = iter(dist_train)
        for _ in range(steps):
            loss, right = distributed_train_step(next(it))
            loss_sum += float(loss)
            right_sum += float(right)
        test_right = 0.0
        for batch in dist_test:
            test_right += float(distributed_test_step(batch))
        train_loss = loss_sum / max(steps, 1)
        train_acc = right_sum / max(steps * global_batch, 1)
        test_acc = test_right / len(x_test)
        epoch.assign_add(1)
        saved = manager.save(checkpoint_number=e + 1)
        with writer.as_default():
            tf.summary.scalar("loss", train_loss, step=e + 1)
            tf.summary.scalar("accuracy", train_acc, step=e + 1)
            tf.summary.scalar("test_accuracy", test_acc, step=e + 1)
        writer.flush()
        log(f"epoch {e + 1}/{args.epochs}: loss {train_loss:.4f} accuracy {train_acc:.4f} "
            f"test_accuracy {test_acc:.4f} ({steps} steps, {time.time() - t0:.1f}s)"
            + (f", checkpoint {saved}" if chief else ""))

    export(tf, model, args, chief, task_type, task_index)
    if not chief:
        shutil.rmtree(os.path.dirname(scratch_dir(args.model_dir, task_type, task_index)),
                      ignore_errors=True)
    log("done")
    return 0


def export(tf, model, args, chief, task_type, task_index):
    class Serving(tf.Module):
        def __init__(self, m):
            super().__init__()
            self.model = m

        @tf.function(input_signature=[tf.TensorSpec([None, 28, 28], tf.float32, name="images")])
        def serve(self, images):
            probabilities = tf.nn.softmax(self.model(images, training=False))
            return {"probabilities": probabilities,
                    "classes": tf.argmax(probabilities, axis=1)}

    module = Serving(model)
    if chief:
        version = args.model_version or next_version(args.export_dir)
        final = os.path.join(args.export_dir, str(version))
        # Write beside the final directory and rename, so TF Serving (which polls the base
        # directory) never sees a half-written version.
        staging = os.path.join(args.export_dir, f".tmp-{version}-{os.getpid()}")
    else:
        staging = scratch_dir(args.export_dir, task_type, task_index)
    tf.saved_model.save(module, staging, signatures={"serving_default": module.serve})
    if chief:
        if os.path.exists(final):
            shutil.rmtree(final)
        os.replace(staging, final)
        log(f"exported SavedModel version {version}: {os.path.join(final, 'saved_model.pb')}")
    else:
        shutil.rmtree(staging, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
