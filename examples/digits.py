"""Train an MLP and a small CNN on scikit-learn's 8x8 handwritten digits with tensorfrost.

    pip install -e ".[examples]"
    python examples/digits.py                    # both models, on the cpu backend
    python examples/digits.py --model cnn --epochs 20 --backend opengl --plot cnn.png

The dataset (1,797 images, bundled with scikit-learn, no download) is split 80/20 with a
fixed seed. Each training step is one compiled program (``opt.compile_step``): forward,
softmax cross-entropy (``tf.nn.cross_entropy``), backward and the Adam update. The CNN is
built from ``tf.nn`` layers (``Conv2d``, ``ReLU``, ``MaxPool2d``, ``Flatten``, ``Linear``). The script
prints the loss and test accuracy as it goes, with a progress bar per epoch, and writes
the loss curve to a PNG (matplotlib, from the ``bench`` extra).

``tests/test_training.py`` imports this file to check the accuracies it reaches.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import tensorfrost as tf

CLASSES = 10


def load_digits(test_fraction: float = 0.2, seed: int = 0):
    """``(x_train, y_train, x_test, y_test)``: images as float32 rows of 64 values in [0, 1],
    labels as int; a stratified split with a fixed seed."""
    from sklearn.datasets import load_digits as sklearn_digits
    from sklearn.model_selection import train_test_split

    data = sklearn_digits()
    x = (data.data / 16.0).astype(np.float32)
    x_train, x_test, y_train, y_test = train_test_split(x, data.target, test_size=test_fraction,
                                                        random_state=seed, stratify=data.target)
    return x_train, y_train, x_test, y_test


class MLP(tf.Module):
    """64 -> hidden -> hidden -> 10 with tanh; the layers are a ParameterArray."""

    def __init__(self, sizes=(64, 128, 64, CLASSES)):
        super().__init__()
        self.sizes = sizes
        self.layers = tf.ParameterArray()
        for k in range(len(sizes) - 1):
            self.layers.append(tf.Parameter([sizes[k], sizes[k + 1]], tf.float32))
            self.layers.append(tf.Parameter([sizes[k + 1]], tf.float32, random_scale=0.0))

    def forward(self, x):
        count = len(self.sizes) - 1
        for k in range(count):
            x = x @ self.layers[2 * k] + self.layers[2 * k + 1]
            if k < count - 1:
                x = tf.tanh(x)
        return x

    def loss(self, x, y):
        y = tf.assert_tensor(y, [x.shape[0], CLASSES])  # one label row per image
        return tf.nn.cross_entropy(self.forward(x), y)


class CNN(tf.Module):
    """``convs`` 3x3 convolutions (ReLU) and a 2x2 max-pool, dropout, then a dense ReLU
    layer and the classifier, built from ``tf.nn`` layers. Images come in as rows of 64
    values and are viewed as [B, 1, 8, 8] (NCHW, as torch)."""

    def __init__(self, channels: int = 16, hidden: int = 64, convs: int = 2, dropout: float = 0.25):
        super().__init__()
        layers = []
        for k in range(convs):
            layers += [tf.nn.Conv2d(1 if k == 0 else channels, channels, 3, padding=1), tf.nn.ReLU()]
        self.features = tf.nn.Sequential(*layers, tf.nn.MaxPool2d(2), tf.nn.Flatten(),  # [B, channels * 4 * 4]
                                         tf.nn.Dropout(dropout))
        self.hidden = tf.nn.Linear(channels * 16, hidden)
        self.classifier = tf.nn.Linear(hidden, CLASSES)

    def forward(self, x):
        images = tf.reshape(x, [x.shape[0], 1, 8, 8])
        return self.classifier(tf.nn.relu(self.hidden(self.features(images))))

    def loss(self, x, y):
        y = tf.assert_tensor(y, [x.shape[0], CLASSES])
        return tf.nn.cross_entropy(self.forward(x), y)


class ProgressBar:
    """A one-line text progress bar (``\\r``-updated) with a status text."""

    def __init__(self, total: int, label: str, stream=None, width: int = 24):
        self.total, self.label, self.stream, self.width = total, label, stream or sys.stdout, width

    def update(self, done: int, status: str, end: str = "") -> None:
        """Redraw the line; ``end="\\n"`` finishes it."""
        filled = self.width * done // max(self.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{self.total} {status}{end}")
        self.stream.flush()


def accuracy(predict, x, y) -> float:
    """The fraction of ``x`` whose largest logit is at the true label."""
    return float(np.mean(np.argmax(predict(x).numpy, axis=1) == y))


def train(model: tf.Module, data, epochs: int, batch_size: int = 64, learning_rate: float = 0.01,
          seed: int = 0, verbose: bool = True, decay: float = 0.5) -> dict:
    """Train ``model`` with Adam on ``data`` (from ``load_digits``); the learning rate
    decays geometrically to ``decay`` times its start over the run. Returns the history: per-step losses, per-epoch test
    accuracy, and the final accuracy."""
    x_train, y_train, x_test, y_test = data
    onehot = np.eye(CLASSES, dtype=np.float32)[y_train]
    start = time.perf_counter()
    opt = tf.optimizers.adam(model, learning_rate=learning_rate)
    opt.initialize_parameters(seed=seed)
    features = x_train.shape[1]
    tf.nn.set_training(model, True)  # each program is traced in the mode it needs: dropout on here,
    step = opt.compile_step(tf.Arg([-1, features], tf.float32), tf.Arg([-1, CLASSES], tf.float32))
    tf.nn.set_training(model, False)  # and off for the predictions
    predict = model.compile(lambda m, x: m.forward(x), tf.Arg([-1, features], tf.float32), name="predict")
    rng = np.random.default_rng(seed)
    batches = (len(x_train) + batch_size - 1) // batch_size
    history = {"loss": [], "accuracy": []}
    for epoch in range(epochs):
        opt.learning_rate = learning_rate * decay ** (epoch / max(epochs - 1, 1))
        order = rng.permutation(len(x_train))
        bar = ProgressBar(batches, f"epoch {epoch + 1:2d}/{epochs}") if verbose else None
        for k in range(batches):
            rows = order[k * batch_size:(k + 1) * batch_size]
            history["loss"].append(float(step(x_train[rows], onehot[rows]).numpy[0]))
            if bar is not None and k % 4 == 3:
                bar.update(k + 1, f"loss {np.mean(history['loss'][-(k + 1):]):.4f}")
        history["accuracy"].append(accuracy(predict, x_test, y_test))
        if bar is not None:
            epoch_loss = np.mean(history["loss"][-batches:])
            bar.update(batches, f"loss {epoch_loss:.4f}  test accuracy {history['accuracy'][-1]:.1%}", end="\n")
    history["final_accuracy"] = history["accuracy"][-1]
    history["seconds"] = time.perf_counter() - start
    if verbose:
        print(f"{type(model).__name__}: test accuracy {history['final_accuracy']:.2%} after {epochs} epochs "
              f"({history['seconds']:.1f} s, compile included)")
    return history


def plot_losses(histories: dict, path: str) -> None:
    """Write the loss curves (one per model, smoothed over an epoch) to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, history in histories.items():
        losses = np.asarray(history["loss"])
        window = max(len(losses) // len(history["accuracy"]), 1)
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
        ax.plot(losses, alpha=0.25)
        ax.plot(np.arange(window - 1, len(losses)), smooth, label=f"{name} ({history['final_accuracy']:.1%} test)",
                color=ax.lines[-1].get_color())
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy loss")
    ax.set_title("tensorfrost on sklearn digits (Adam)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=["mlp", "cnn", "both"], default="both")
    ap.add_argument("--epochs", type=int, default=None, help="default: 15")
    ap.add_argument("--backend", choices=["cpu", "opengl"], default="cpu")
    ap.add_argument("--plot", default="digits_loss.png", help="PNG file for the loss curves")
    ap.add_argument("--save", default=None, help="save the trained parameters to this .npz (per model)")
    args = ap.parse_args(argv)
    tf.initialize(getattr(tf, args.backend))
    data = load_digits()
    print(f"digits: {len(data[0])} training and {len(data[2])} test images of 8x8")
    histories = {}
    for name in (["mlp", "cnn"] if args.model == "both" else [args.model]):
        model = MLP() if name == "mlp" else CNN()
        epochs = args.epochs or 15
        histories[name] = train(model, data, epochs, decay=0.3 if name == "cnn" else 0.5)
        if args.save:
            model.save(args.save.replace(".npz", f"_{name}.npz"))
    try:
        plot_losses(histories, args.plot)
        print(f"loss curve written to {args.plot}")
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[bench]'): no plot written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
