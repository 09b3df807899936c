import os

def join(a, b):
    return os.path.join(a, b)
