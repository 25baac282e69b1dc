;;; robray-mode.el --- Major mode for robray scene files  -*- lexical-binding: t; -*-

;; Keywords: languages, robotics
;; Package-Requires: ((emacs "26.1"))
;; URL: robrayc's editors/emacs directory

;;; Commentary:

;; A major mode for robray scene files (`.robray', the language of amino's aarxc and of
;; robrayc).  Derived from `prog-mode' (no cc-mode dependency):
;;
;; - font-lock for keywords, frame and geometry attributes, shapes, joint types, constants
;;   (pi, π, deg), numbers in every form (1, 1., .5, 1e-2, 2.5D2, 1d-3), strings, and the
;;   names after frame/object/class/def/isa/parent/allow_collision;
;; - a syntax table for the three comment styles (// ..., # ..., /* ... */), in which a hyphen
;;   inside a name (`upper-link') is part of the symbol;
;; - indentation by brace depth (`robray-indent-offset');
;; - imenu entries for frames, classes and defs;
;; - `compile' integration (an error regexp for robrayc's diagnostics);
;; - a flymake backend that runs robrayc on the buffer's current text;
;; - eglot registration for the language server (`robrayc lsp').
;;
;; Install: put this file on `load-path' and (require 'robray-mode), or
;;   (autoload 'robray-mode "robray-mode" nil t)
;;   (add-to-list 'auto-mode-alist '("\\.robray\\'" . robray-mode))
;; Flymake: (add-hook 'robray-mode-hook #'flymake-mode)

;;; Code:

(require 'rx)
(require 'subr-x)

(defgroup robray nil
  "Editing robray scene files."
  :group 'languages
  :prefix "robray-")

(defcustom robray-indent-offset 4
  "Indentation of each nesting level ({ }, [ ], ( )) in robray files."
  :type 'integer
  :safe #'integerp)

(defcustom robray-executable "robrayc"
  "The robrayc program, used by `compile', flymake and eglot."
  :type 'string)

(defcustom robray-flymake-arguments '("lsp" "--stdin" "--check")
  "Arguments given to `robray-executable' by the flymake backend.
The buffer's file name is appended; the buffer's text is sent on
standard input, so unsaved changes are checked and includes resolve
from the file's directory."
  :type '(repeat string))

(defface robray-number-face
  (if (facep 'font-lock-number-face)
      '((t :inherit font-lock-number-face))
    '((t :inherit font-lock-constant-face)))
  "Face for numbers in robray files.")

;;; Vocabulary (grammar/robray.lark and the reference's attribute lists)

(defconst robray-frame-attributes
  '("parent" "translation" "quaternion" "rpy" "type" "axis" "offset" "variable"
    "limit_position" "limit_velocity" "limit_acceleration" "limit_effort" "mass" "inertia"
    "link" "link_role" "robot" "root_link")
  "Attributes of a frame.")

(defconst robray-geometry-attributes
  '("shape" "mesh" "dimension" "radius" "height" "start_radius" "end_radius" "delta"
    "thickness" "color" "alpha" "specular" "scale" "visual" "collision" "no-shadow"
    "no_shadow" "material")
  "Attributes of a geometry block or class.")

(defconst robray-shapes '("box" "sphere" "cylinder" "cone" "grid"))
(defconst robray-joint-types '("fixed" "revolute" "prismatic" "ball" "floating"))
(defconst robray-constants '("pi" "π" "deg"))

(defconst robray--name-re "[A-Za-z_][A-Za-z0-9_]*\\(?:-[A-Za-z0-9_]+\\)*"
  "A robray identifier; hyphens between parts belong to it.")

(defconst robray--name-or-string-re
  (concat "\\(?:" robray--name-re "\\|\"[^\"\n]*\"\\)"))

(defun robray--words (words)
  "A regexp matching one of WORDS as a whole symbol."
  (concat "\\_<" (regexp-opt words t) "\\_>"))

(defconst robray--stmt-start "\\(?:^\\|[{;]\\)[ \t]*"
  "Where an attribute can stand: first on a line or after `{' or `;'.")

;;; Syntax

(defvar robray-mode-syntax-table
  (let ((st (make-syntax-table)))
    ;; /* */ is comment style a; // and # are style b, ended by a newline.
    (modify-syntax-entry ?/ ". 124b" st)
    (modify-syntax-entry ?* ". 23" st)
    (modify-syntax-entry ?# "< b" st)
    (modify-syntax-entry ?\n "> b" st)
    (modify-syntax-entry ?\" "\"" st)
    (modify-syntax-entry ?\\ "." st)  ; strings have no escapes
    (modify-syntax-entry ?' "." st)
    (modify-syntax-entry ?_ "_" st)
    ;; A hyphen is an operator; `robray-syntax-propertize' makes it a symbol constituent
    ;; inside names such as `upper-link'.
    (modify-syntax-entry ?- "." st)
    (modify-syntax-entry ?+ "." st)
    (modify-syntax-entry ?^ "." st)
    (modify-syntax-entry ?\; "." st)
    (modify-syntax-entry ?, "." st)
    st)
  "Syntax table for `robray-mode'.")

(defun robray-syntax-propertize (start end)
  "Mark hyphens inside identifiers between START and END as symbol constituents."
  (goto-char start)
  (let ((re (concat "\\([A-Za-z_][A-Za-z0-9_]*\\(?:-[A-Za-z0-9_]+\\)+\\)")))
    (while (re-search-forward re end t)
      (let ((beg (match-beginning 1))
            (stop (match-end 1)))
        ;; Only a name starting a token: `e2-x' in `1e2-x' is a number, `-', a name.
        (unless (and (> beg (point-min))
                     (string-match-p "[[:alnum:]_.]" (string (char-before beg))))
          (save-excursion
            (goto-char beg)
            (while (search-forward "-" stop t)
              (put-text-property (1- (point)) (point) 'syntax-table (string-to-syntax "_")))))))))

;;; Font lock

(defun robray--match-number (limit)
  "Font-lock matcher for robray numbers up to LIMIT (not inside names)."
  (let (found)
    (while (and (not found)
                (re-search-forward
                 "\\(?:[0-9]+\\(?:\\.[0-9]*\\)?\\|\\.[0-9]+\\)\\(?:[eEdDsS][-+]?[0-9]+\\)?"
                 limit t))
      (let ((before (char-before (match-beginning 0))))
        (unless (or (and before (string-match-p "[[:alnum:]_.]" (string before)))
                    ;; a hyphen that is part of a name, as in `link-2'
                    (and (eq before ?-)
                         (eq (car (syntax-after (1- (match-beginning 0))))
                             (car (string-to-syntax "_"))))
                    (and (char-after) (string-match-p "[[:alnum:]_]" (string (char-after)))))
          (setq found t))))
    found))

(defconst robray-font-lock-keywords
  (let ((name robray--name-or-string-re))
    `(;; Declarations and the names they introduce.
      (,(concat "\\_<\\(frame\\|object\\)\\_>[ \t\n]*\\(" name "\\)?")
       (1 font-lock-keyword-face) (2 font-lock-function-name-face nil t))
      (,(concat "\\_<\\(class\\)\\_>[ \t\n]*\\(" name "\\)?")
       (1 font-lock-keyword-face) (2 font-lock-type-face nil t))
      (,(concat "\\_<\\(def\\)\\_>[ \t\n]*\\(" name "\\)?")
       (1 font-lock-keyword-face) (2 font-lock-variable-name-face nil t))
      (,(concat "\\_<\\(allow_collision\\)\\_>[ \t\n]*\\(" name "\\)?[ \t\n]*\\(" name "\\)?")
       (1 font-lock-keyword-face) (2 font-lock-function-name-face nil t)
       (3 font-lock-function-name-face nil t))
      ("\\_<\\(include\\)\\_>" 1 font-lock-preprocessor-face)
      ("\\_<\\(geometry\\)\\_>" 1 font-lock-keyword-face)
      ;; Attributes whose value is a name.
      (,(concat robray--stmt-start "\\_<\\(parent\\)\\_>[ \t]*\\(" name "\\)?")
       (1 font-lock-builtin-face) (2 font-lock-function-name-face nil t))
      (,(concat robray--stmt-start "\\_<\\(isa\\)\\_>[ \t]*\\(" name "\\)?")
       (1 font-lock-builtin-face) (2 font-lock-type-face nil t))
      (,(concat robray--stmt-start "\\_<\\(shape\\)\\_>[ \t]*" (robray--words robray-shapes) "?")
       (1 font-lock-builtin-face) (2 font-lock-constant-face nil t))
      (,(concat robray--stmt-start "\\_<\\(type\\)\\_>[ \t]*"
                (robray--words robray-joint-types) "?")
       (1 font-lock-builtin-face) (2 font-lock-constant-face nil t))
      ;; Other attributes.
      (,(concat robray--stmt-start
                (robray--words (append robray-frame-attributes robray-geometry-attributes)))
       1 font-lock-builtin-face)
      ;; Constants and numbers.
      (,(robray--words '("pi" "deg")) 1 font-lock-constant-face)
      ("π" 0 font-lock-constant-face)
      (robray--match-number 0 'robray-number-face)))
  "Font-lock keywords for `robray-mode'.")

;;; Indentation

(defun robray--indent-of-comment-line ()
  "Indentation of the current line inside a /* */ comment, or nil if not in one."
  (let ((ppss (save-excursion (syntax-ppss (line-beginning-position)))))
    (when (and (nth 4 ppss) (nth 8 ppss) (not (nth 7 ppss)))
      (save-excursion
        (back-to-indentation)
        (if (looking-at-p "\\*")
            (progn (goto-char (nth 8 ppss)) (1+ (current-column)))
          (current-indentation))))))

(defun robray-calculate-indentation ()
  "The indentation the current line should have."
  (or (robray--indent-of-comment-line)
      (save-excursion
        (back-to-indentation)
        (let ((depth (car (syntax-ppss (point)))))
          ;; Each closer leading the line takes one level back.
          (while (looking-at "[]})][ \t]*")
            (setq depth (1- depth))
            (goto-char (match-end 0)))
          (* robray-indent-offset (max depth 0))))))

(defun robray-indent-line ()
  "Indent the current line as robray code."
  (interactive)
  (let ((indent (robray-calculate-indentation)))
    (save-excursion
      (beginning-of-line)
      (let ((want (if indent-tabs-mode
                      (concat (make-string (/ indent tab-width) ?\t)
                              (make-string (% indent tab-width) ?\s))
                    (make-string indent ?\s))))
        ;; Re-write the whitespace unless it is already what `indent-to' would make (so a tab
        ;; is replaced by spaces when `indent-tabs-mode' is off).
        (unless (looking-at-p (concat (regexp-quote want) "[^ \t]"))
          (delete-horizontal-space)
          (indent-to indent))))
    ;; Point stays on its text; from inside the indentation it moves to the first character.
    (when (< (current-column) (current-indentation))
      (back-to-indentation))))

;;; imenu

(defconst robray--imenu-name-re
  (concat "\\(?:\"\\(?1:[^\"\n]*\\)\"\\|\\(?1:" robray--name-re "\\)\\)")
  "A name or a quoted name; group 1 is the name without quotes.")

(defconst robray-imenu-generic-expression
  `(("Defs" ,(concat "^[ \t]*def[ \t]+" robray--imenu-name-re) 1)
    ("Classes" ,(concat "^[ \t]*class[ \t]+" robray--imenu-name-re) 1)
    ("Frames" ,(concat "\\(?:^\\|[{;]\\)[ \t]*\\(?:frame\\|object\\)[ \t\n]+"
                       robray--imenu-name-re)
     1))
  "Imenu entries for frames (nested ones too), classes and defs.")

;;; compile

(defconst robray-compilation-regexp
  `(,(concat "^\\([^:\n]+\\):\\([0-9]+\\):\\([0-9]+\\): "
             "\\(?:error\\|\\(warning\\)\\|\\(note\\)\\):")
    1 2 3 (4 . 5))
  "A robrayc diagnostic: FILE:LINE:COL: error|warning|note: MESSAGE.")

(with-eval-after-load 'compile
  (defvar compilation-error-regexp-alist-alist)
  (defvar compilation-error-regexp-alist)
  (add-to-list 'compilation-error-regexp-alist-alist
               (cons 'robrayc robray-compilation-regexp))
  (add-to-list 'compilation-error-regexp-alist 'robrayc))

;;; flymake

(defvar-local robray--flymake-process nil)

(defconst robray--diagnostic-re
  "^\\(.*?\\):\\([0-9]+\\):\\([0-9]+\\): \\(error\\|warning\\|note\\): \\(.*\\)$")

(defun robray--parse-diagnostics (output)
  "Parse robrayc's OUTPUT into (FILE LINE COL WIDTH TYPE MESSAGE) lists.
WIDTH comes from the caret line (`^~~~') when there is one."
  (let ((lines (split-string output "\n"))
        result)
    (while lines
      (let ((line (pop lines)))
        (when (string-match robray--diagnostic-re line)
          (let ((file (match-string 1 line))
                (lnum (string-to-number (match-string 2 line)))
                (col (string-to-number (match-string 3 line)))
                (type (match-string 4 line))
                (msg (match-string 5 line))
                (width 1))
            ;; Optional source line and caret line, then an optional hint.
            (when (and (cadr lines) (string-match "^ *\t*[ \t]*\\^\\(~*\\)$" (cadr lines)))
              (setq width (1+ (length (match-string 1 (cadr lines)))))
              (setq lines (cddr lines)))
            (when (and lines (string-prefix-p "hint: " (car lines)))
              (setq msg (concat msg " (" (substring (pop lines) 6) ")")))
            (push (list file lnum col width type msg) result)))))
    (nreverse result)))

(defun robray--region (buffer line col width)
  "BUFFER positions (BEG . END) of LINE, COL (1-based characters) and WIDTH."
  (with-current-buffer buffer
    (save-excursion
      (save-restriction
        (widen)
        (goto-char (point-min))
        (forward-line (1- (max line 1)))
        (let* ((eol (line-end-position))
               (beg (min eol (+ (point) (max (1- col) 0))))
               (end (min eol (+ beg (max width 1)))))
          (if (< beg end)
              (cons beg end)
            ;; At the end of a line: mark the character before (or the whole line).
            (cons (max (line-beginning-position) (1- beg)) (max end (1+ (line-beginning-position))))))))))

(defun robray-flymake (report-fn &rest _args)
  "Flymake backend: run robrayc on the buffer's text and report to REPORT-FN."
  (unless (executable-find robray-executable)
    (error "Cannot find %s" robray-executable))
  (when (process-live-p robray--flymake-process)
    (kill-process robray--flymake-process))
  (let* ((source (current-buffer))
         (file (or buffer-file-name (expand-file-name (buffer-name))))
         (default-directory (file-name-directory file)))
    (save-restriction
      (widen)
      (setq robray--flymake-process
            (make-process
             :name "robray-flymake" :noquery t :connection-type 'pipe
             :buffer (generate-new-buffer " *robray-flymake*")
             :command (append (list robray-executable) robray-flymake-arguments (list file))
             :sentinel
             (lambda (proc _event)
               (when (memq (process-status proc) '(exit signal))
                 (unwind-protect
                     (if (with-current-buffer source (eq proc robray--flymake-process))
                         (let ((diags nil)
                               (output (with-current-buffer (process-buffer proc)
                                         (buffer-string))))
                           ;; Exit 0: clean, 1: diagnostics; anything else is a failure to
                           ;; run (an old robrayc without `lsp', a crash): disable, say why.
                           (unless (memq (process-exit-status proc) '(0 1))
                             (funcall report-fn :panic
                                      :explanation (format "%s failed: %s" robray-executable
                                                           (string-trim output)))
                             (setq output nil))
                           (dolist (d (and output (robray--parse-diagnostics output)))
                             (pcase-let ((`(,dfile ,line ,col ,width ,type ,msg) d))
                               ;; Diagnostics in other files (includes) are reported at
                               ;; the top of this buffer, naming their place.
                               (let* ((here (file-equal-p dfile file))
                                      (region (if here (robray--region source line col width)
                                                (robray--region source 1 1 1))))
                                 (push (flymake-make-diagnostic
                                        source (car region) (cdr region)
                                        (pcase type
                                          ("error" :error)
                                          ("warning" :warning)
                                          (_ :note))
                                        (if here msg (format "%s:%d:%d: %s" dfile line col msg)))
                                       diags))))
                           (when output
                             (funcall report-fn (nreverse diags))))
                       (flymake-log :warning "Canceling obsolete check %s" proc))
                   (kill-buffer (process-buffer proc)))))))
      (process-send-region robray--flymake-process (point-min) (point-max))
      (process-send-eof robray--flymake-process))))

;;; The mode

(defvar robray-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'compile)
    map)
  "Keymap for `robray-mode'.")

;;;###autoload
(define-derived-mode robray-mode prog-mode "robray"
  "Major mode for editing robray scene files.

\\{robray-mode-map}"
  :syntax-table robray-mode-syntax-table
  (setq-local syntax-propertize-function #'robray-syntax-propertize)
  (setq-local font-lock-defaults '(robray-font-lock-keywords nil nil))
  (setq-local comment-start "// ")
  (setq-local comment-end "")
  (setq-local comment-start-skip "\\(?://+\\|#+\\|/\\*+\\)[ \t]*")
  (setq-local comment-end-skip "[ \t]*\\(?:\n\\|\\*+/\\)")
  (setq-local indent-line-function #'robray-indent-line)
  ;; The corpus style: spaces, `robray-indent-offset' (4) per level, never tabs.
  (setq-local indent-tabs-mode nil)
  (setq-local electric-indent-chars (append "{}[]" electric-indent-chars))
  (setq-local imenu-generic-expression robray-imenu-generic-expression)
  (setq-local imenu-case-fold-search nil)
  (when buffer-file-name
    (setq-local compile-command
                (concat robray-executable " "
                        (shell-quote-argument (file-name-nondirectory buffer-file-name)))))
  (add-hook 'flymake-diagnostic-functions #'robray-flymake nil t))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.\\(?:robray\\|curly\\)\\'" . robray-mode))

;; The language server: M-x eglot in a robray buffer starts `robrayc lsp'.
(defun robray-eglot-contact (&optional _interactive)
  "How eglot starts the language server: `robray-executable' lsp."
  (list robray-executable "lsp"))

(with-eval-after-load 'eglot
  (defvar eglot-server-programs)
  (add-to-list 'eglot-server-programs '(robray-mode . robray-eglot-contact)))

(provide 'robray-mode)

;;; robray-mode.el ends here
