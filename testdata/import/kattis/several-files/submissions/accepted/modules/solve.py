"""The entry point: the one file with a __main__ guard (no main.py, none named like the folder;
reading.py comes first by name)."""
from reading import read

if __name__ == "__main__":
    print(sum(read()))
