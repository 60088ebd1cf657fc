"""Building and running emitted C on the emulated Cortex-M4 (tests/mcu/board:
QEMU mps2-an386 under -icount shift=0), for the bench scripts
mcu_call_profile.py and mcu_pc_profile.py."""
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARD = os.path.join(REPO, "tests", "mcu", "board")
M4_FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]


def build_command(emitted, elf, sources, ram):
    """arm-none-eabi-gcc linking the board, `sources` (main and model.c) and the
    emitted runtime's kernels of `emitted` into `elf`, with `ram` bytes of RAM."""
    kernels = os.path.join(emitted, "runtime", "kernels")
    return ["arm-none-eabi-gcc"] + M4_FLAGS + [
        "-std=c99", "-O2", "-ffreestanding", "-ffunction-sections", "-fdata-sections", "-nostdlib", "-nostartfiles",
        "-T", os.path.join(BOARD, "mps2.ld"), "-Wl,--defsym=__ram_size=%d" % ram, "-Wl,--gc-sections",
        "-I" + BOARD, "-I" + emitted, "-I" + os.path.join(emitted, "runtime", "include"), "-o", elf,
        os.path.join(BOARD, "startup.c")] + list(sources) + \
        sorted(os.path.join(kernels, k) for k in os.listdir(kernels) if k.endswith(".c")) + ["-lm", "-lc", "-lgcc"]


def qemu_command(elf, extra=()):
    """qemu-system-arm running `elf` on mps2-an386 (semihosting to the host's stdout)."""
    return ["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-monitor", "none", "-serial", "none",
            "-semihosting-config", "enable=on,target=native", "-icount", "shift=0", "-kernel", elf] + list(extra)
