# A multi-file submission folder holding one program, in DOMjudge's .py3: imported as onefile.py.
print(2 * int(input()))
