def no_final_newline():
    return 42