"""Train the float32 bench model: the digits CNN of scripts/digits_net.py, kept in float32.

Usage: python scripts/train_digits_f32.py

Trains in plain numpy on scikit-learn's bundled digits set (no download; the same seeded training as
the int8 example model), writes models/float/digits_cnn_f32.tflite with float32 weights, biases and
activations (CONV_2D, CONV_2D, RESHAPE, FULLY_CONNECTED; the output is the logits), and checks its
accuracy with the TFLite Micro interpreter. Everything is seeded, so reruns give identical bytes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # lets the script run from a plain checkout

from mote.frontend.tflite_writer import ModelBuilder  # noqa: E402

sys.path.insert(0, str(REPO / "scripts"))
from digits_net import CLASSES, CONV1_CH, CONV2_CH, SEED, Params, load_data, predict, train  # noqa: E402

MODEL_PATH = REPO / "models" / "float" / "digits_cnn_f32.tflite"


def build_model(p: Params) -> bytes:
    mb = ModelBuilder()

    def const(name: str, data: np.ndarray) -> int:
        data = np.asarray(data, np.float32)
        return mb.tensor(name, list(data.shape), "float32", data=data)

    x = mb.tensor("input", [1, 8, 8, 1], "float32")
    conv1 = mb.tensor("conv1", [1, 8, 8, CONV1_CH], "float32")
    mb.op("CONV_2D", [x, const("conv1/weights", p["w1"]), const("conv1/bias", p["b1"])], [conv1], padding="SAME",
          stride_h=1, stride_w=1, fused_activation_function="RELU")
    conv2 = mb.tensor("conv2", [1, 4, 4, CONV2_CH], "float32")
    mb.op("CONV_2D", [conv1, const("conv2/weights", p["w2"]), const("conv2/bias", p["b2"])], [conv2],
          padding="SAME", stride_h=2, stride_w=2, fused_activation_function="RELU")
    flat_len = 4 * 4 * CONV2_CH
    shape = mb.tensor("flatten/shape", [2], "int32", data=np.array([1, flat_len], np.int32))
    flatten = mb.tensor("flatten", [1, flat_len], "float32")
    mb.op("RESHAPE", [conv2, shape], [flatten], new_shape=[1, flat_len])
    logits = mb.tensor("logits", [1, CLASSES], "float32")
    mb.op("FULLY_CONNECTED", [flatten, const("logits/weights", p["w3"]), const("logits/bias", p["b3"])], [logits])
    return mb.build(inputs=[x], outputs=[logits], description="mote digits_cnn_f32")


def tflm_accuracy(model: bytes, x: np.ndarray, y: np.ndarray) -> float:
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    correct = 0
    for image, label in zip(x, y):
        interp.set_input(image[None].astype(np.float32), 0)
        interp.invoke()
        correct += int(interp.get_output(0).argmax() == label)
    return correct / len(y)


def main() -> None:
    start = time.perf_counter()
    x_train, x_test, y_train, y_test = load_data()
    params = train(x_train, y_train, np.random.default_rng(SEED))
    numpy_acc = float(np.mean(predict(params, x_test) == y_test))
    print(f"trained in {time.perf_counter() - start:.1f} s")
    model = build_model(params)
    MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
    MODEL_PATH.write_bytes(model)
    print(f"test accuracy: {100 * numpy_acc:.2f}% (numpy), {100 * tflm_accuracy(model, x_test, y_test):.2f}% "
          f"(TFLite Micro, float32)")
    print(f"wrote {MODEL_PATH.relative_to(REPO)} ({len(model)} bytes)")


if __name__ == "__main__":
    main()
