"""Generated code is compiled and run: no user string may change what it does.

Every place a user's string reaches generated code (input names, region names, program
names, assert messages with the user's file name) is fed strings that would end a C string
literal or a ``//`` comment and run a command; the program must compile, run correctly and
leave the canary file absent, on the CPU and in codegen output."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorfrost as tf

CANARY = "tf_security_canary"


def payloads(canary: str) -> list[str]:
    command = f'system("touch {canary}");'
    return [
        f'a"); {command} //',
        f"r\n{command}\n",
        f"x */ {command} /* ",
        f"q??/\n{command}",
        f'back\\"); {command} //\\',
        f"nul\0{command}",
        f"é ünïcode \u202e {command}",
        "{0} {1} %s %n",
    ]


@pytest.fixture
def canary(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a command that ran would create the canary here
    path = tmp_path / CANARY
    yield str(path)
    assert not path.exists(), "a user string ran as code"


def _program(evil: str):
    def program():
        a = tf.input([4], tf.float32, name=evil)
        tf.region_begin(evil)
        b = a * 2.0
        tf.region_end(evil)
        b[0] = 1.0  # a write, so that buffers are allocated and labelled
        return b
    return program


@pytest.mark.parametrize("index", range(len(payloads(CANARY))))
def test_strings_in_names_and_regions_stay_strings_on_the_cpu(canary, index):
    evil = payloads(canary)[index]
    tf.initialize(tf.cpu)
    compiled = tf.compile(_program(evil), name=evil)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(compiled(x).numpy, [1.0, 2.0, 4.0, 6.0])
    with pytest.raises(tf.TensorFrostError) as info:  # the name comes back in the message, intact
        compiled(np.zeros((2, 2), np.float32))
    assert "rank" in str(info.value)
    source = compiled.compiled_code()
    assert f'system("touch {canary}")' not in source


@pytest.mark.parametrize("lang", ["cpp", "glsl", "hlsl", "wgsl"])
def test_strings_in_codegen_output_stay_strings(canary, lang):
    tf.initialize(tf.codegen, kernel_lang=getattr(tf, f"{lang}_lang"))
    try:
        for evil in payloads(canary):
            tf.compile(_program(evil), name=evil)
        code = "\n".join([tf.get_cpp_header(), *tf.get_all_generated_main_functions(),
                          *tf.get_all_generated_kernels()])
    finally:
        tf.initialize(tf.cpu)
    assert f'system("touch {canary}")' not in code
    for line in code.splitlines():  # a payload never starts a line of code
        assert not line.lstrip().startswith("system("), line


def test_a_file_name_in_assert_messages_stays_a_string(tmp_path, canary):
    """The user's file name is part of every check's message: quotes and newlines in it."""
    folder = tmp_path / 'odd"dir\nname'
    folder.mkdir()
    script = folder / "prog.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, tensorfrost as tf
        def program():
            a = tf.input([-1], tf.float32)
            b = tf.input([-1], tf.float32)
            return a + b  # combined: a check that the sizes agree, with this file's name
        p = tf.compile(program)
        print(p(np.ones(3, np.float32), np.ones(3, np.float32)).numpy.tolist())
        try:
            p(np.ones(3, np.float32), np.ones(4, np.float32))
        except tf.RuntimeCheckError as e:
            print("checked", "prog.py" in str(e))
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path, env=dict(os.environ))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["[2.0,", "2.0,", "2.0]", "checked", "True"]
