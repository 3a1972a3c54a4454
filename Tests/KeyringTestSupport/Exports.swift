@_exported import Subprocesses
