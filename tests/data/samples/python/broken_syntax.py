# Broken on purpose (tests/cmake/samples.cmake): a syntax error the compile check must catch.
def main(:
    return 0
