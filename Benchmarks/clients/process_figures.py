"""What a running process holds, read from /proc, for the broker's benchmarks."""
import os


def status(pid, field):
    """A field of /proc/PID/status in kB (VmRSS, VmHWM, …), 0 when absent."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """The process's CPU time so far (user and system), in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def threads(pid):
    return len(os.listdir("/proc/%d/task" % pid))


def descriptors(pid):
    return len(os.listdir("/proc/%d/fd" % pid))
