" robray scene files (amino aarxc / robrayc); `.curly` is the original's other suffix.
autocmd BufNewFile,BufRead *.robray,*.curly setfiletype robray
